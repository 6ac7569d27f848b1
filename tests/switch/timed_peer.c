// SPDX-License-Identifier: GPL-2.0
/*
 * Two idle timed NICs in C, for timed_bench.py: join ports 0 and 1 of a
 * timed rocx-switch at 0 and answer every promise p of the switch with
 * SYNC p + L, as a NIC that runs exactly to its horizon does.  Python
 * peers cost more than the switch per round; these show the round
 * itself.  Not a test: it prints numbers.
 *
 *   timed_peer SOCKDIR LATENCY_NS SECONDS
 *
 * Prints "rounds N wall_s W virtual_ns V".
 */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "rocx/rocx_fabric.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put_be64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get_be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* A timed record with no entries: HELLO (padded to 60) or SYNC. */
static void send_rec(int fd, uint8_t type, uint64_t t)
{
	static const uint8_t dst[6] = ROCX_FAB_DST_MAC;
	uint8_t r[ROCX_FAB_CTRL_LEN] = { 0 };
	size_t len = type == ROCX_FAB_HELLO ? ROCX_FAB_CTRL_LEN :
		     ROCX_FAB_TIMED_HLEN;

	memcpy(r, dst, 6);
	r[6] = 2;
	r[ROCX_FAB_OFF_ETHERTYPE] = ROCX_FAB_ETHERTYPE >> 8;
	r[ROCX_FAB_OFF_ETHERTYPE + 1] = ROCX_FAB_ETHERTYPE & 0xff;
	r[ROCX_FAB_OFF_MAGIC] = ROCX_FAB_MAGIC >> 24;
	r[ROCX_FAB_OFF_MAGIC + 1] = (ROCX_FAB_MAGIC >> 16) & 0xff;
	r[ROCX_FAB_OFF_MAGIC + 2] = (ROCX_FAB_MAGIC >> 8) & 0xff;
	r[ROCX_FAB_OFF_MAGIC + 3] = ROCX_FAB_MAGIC & 0xff;
	r[ROCX_FAB_OFF_TYPE] = type;
	r[ROCX_FAB_OFF_FLAGS] = ROCX_FAB_F_TIMED;
	r[ROCX_FAB_OFF_MAX_LEN + 1] = 1;	/* 65536 */
	put_be64(r + ROCX_FAB_OFF_TIME, t);
	if (send(fd, r, len, 0) != (ssize_t)len) {
		perror("timed_peer: send");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static uint8_t rec[ROCX_FAB_BUNDLE_MAX];
	struct pollfd pfd[2];
	uint64_t lat, last = 0, rounds = 0;
	double t0, secs;
	int i;

	if (argc != 4)
		return 2;
	lat = strtoull(argv[2], NULL, 10);
	secs = atof(argv[3]);
	for (i = 0; i < 2; i++) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/ch%d.sock",
			 argv[1], i);
		pfd[i].fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		pfd[i].events = POLLIN;
		if (pfd[i].fd < 0 ||
		    connect(pfd[i].fd, (struct sockaddr *)&sa, sizeof(sa))) {
			perror(sa.sun_path);
			return 1;
		}
		send_rec(pfd[i].fd, ROCX_FAB_HELLO, 0);
		if (recv(pfd[i].fd, rec, sizeof(rec), 0) < ROCX_FAB_TIMED_HLEN)
			return 1;
	}
	t0 = now_s();
	while (now_s() - t0 < secs) {
		if (poll(pfd, 2, 5000) <= 0)
			return 1;
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (!(pfd[i].revents & POLLIN))
				continue;
			n = recv(pfd[i].fd, rec, sizeof(rec), MSG_DONTWAIT);
			if (n < ROCX_FAB_TIMED_HLEN)
				return 1;
			if (rec[ROCX_FAB_OFF_TYPE] != ROCX_FAB_SYNC)
				continue;
			last = get_be64(rec + ROCX_FAB_OFF_TIME);
			send_rec(pfd[i].fd, ROCX_FAB_SYNC, last + lat);
			rounds += i == 0;
		}
	}
	printf("rounds %llu wall_s %.3f virtual_ns %llu\n",
	       (unsigned long long)rounds, now_s() - t0,
	       (unsigned long long)last);
	return 0;
}
