// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * at_exec: run a command at a stated instant of the guest's clock.
 *
 *   at_exec STEP_MS CMD [ARG...]
 *	Sleeps until CLOCK_MONOTONIC reads the next whole multiple of
 *	STEP_MS ms at least STEP_MS/2 away, then executes CMD.
 *
 * In virtual time (a timed run) the guest's periodic work, its timer
 * tick first, falls on the same instants of CLOCK_MONOTONIC in every
 * run, so a program started on a round instant meets it at the same
 * points of its own work, and its figures do not move with the instant
 * the host's 9p answer let it start (scripts/guest/bench.sh).  As rc_flow
 * -a does: an absolute deadline with a timer slack of 1 ns, so that
 * neither the set-up's length nor the kernel's 50 us of slack decides
 * the instant.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec now, ts;
	uint64_t step, t, at;
	char *end;
	int err;

	if (argc < 3) {
		fprintf(stderr, "usage: at_exec STEP_MS CMD [ARG...]\n");
		return 2;
	}
	step = strtoull(argv[1], &end, 10) * 1000000ull;
	if (*end || !step) {
		fprintf(stderr, "at_exec: bad step %s\n", argv[1]);
		return 2;
	}
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0)) {
		perror("at_exec: PR_SET_TIMERSLACK");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	t = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	at = (t + step / 2) / step * step + step;
	ts.tv_sec = (time_t)(at / 1000000000ull);
	ts.tv_nsec = (long)(at % 1000000000ull);
	do {
		err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	} while (err == EINTR);
	if (err) {
		fprintf(stderr, "at_exec: clock_nanosleep: %s\n", strerror(err));
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "at_exec: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
