// SPDX-License-Identifier: GPL-2.0
/*
 * Whose fault lost line time is (qos.h, lost_host_ns and lost_recv_ns).
 *
 * A port loses line time when it had frames that could go and did not
 * send them.  Short of tokens, the frames wait for the switch's own timer,
 * so the time lost is the switch coming back late: the host did not run
 * it.  Held by its guest (the socket full, or backlog= bytes unread), the
 * frames wait for the guest to read, and a guest does not read either
 * because the host did not run it or because it ran and would not take
 * them: QEMU stops reading a socket while its NIC has nowhere to put a
 * frame (an empty receive ring).  The first excuses a slow measurement;
 * the second is the receiving NIC's own doing and excuses nothing.
 *
 * The kernel tells how long a task was runnable and waited for a CPU
 * (its run delay, the second field of /proc/PID/task/TID/schedstat).
 * The guest's threads are sampled at least LOST_WINDOW_NS apart while
 * it holds frames; the host's part of the time a hold lost is the longest
 * any one of the guest's threads waited in each window, summed over the
 * hold, at most the time lost; the rest is the receiver's.  One
 * thread's wait, not their sum: a QEMU's vCPU and I/O threads wait at the
 * same moments on a busy host, and a sum would excuse one stall several
 * times.  The switch's own waits do not excuse a hold (the guest did not
 * read either), except how late the switch came back to a hold that had
 * ended meanwhile (qos_service()).  A guest whose process is not known
 * (it has sent nothing, or its /proc entry cannot be read) excuses
 * nothing.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "switch.h"

/*
 * Sampling costs a directory walk of the guest's threads: at most this
 * often per port, which also bounds how far a window's run delays can
 * stray from the time the port was held in it.
 */
#define LOST_WINDOW_NS	10000000ULL

/* Two numbers from the start of a file; false if it cannot be read. */
static bool read_two(const char *path, uint64_t *a, uint64_t *b)
{
	char buf[128];
	unsigned long long x, y;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &x, &y) != 2)
		return false;
	*a = x;
	*b = y;
	return true;
}

/* The thread is runnable (state R in its stat file). */
static bool runnable(int pid, long tid)
{
	char path[64], buf[256], *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%ld/stat", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] == 'R';
}

/*
 * How long thread t waited for a CPU in the window of win_ns just ended.
 * The kernel adds a wait to the run delay only when the wait ends, so a
 * thread still waiting has not been charged for it: one that is runnable
 * and ran for less than a tenth of the window is taken to have waited the
 * window through, and that credit is taken off the delay when it comes.
 */
static uint64_t thread_wait(struct sw_lost_thread *t, uint64_t run,
			    uint64_t delay, bool is_r, bool known,
			    uint64_t win_ns)
{
	uint64_t got = 0, ran = 0;

	if (known) {
		got = delay >= t->delay_ns ? delay - t->delay_ns : 0;
		ran = run >= t->run_ns ? run - t->run_ns : 0;
		if (got >= t->credit_ns) {
			got -= t->credit_ns;
			t->credit_ns = 0;
		} else {
			t->credit_ns -= got;
			got = 0;
		}
	} else {
		t->credit_ns = 0;
	}
	if (known && is_r && ran < win_ns / 10 && got < win_ns) {
		t->credit_ns += win_ns - got;
		got = win_ns;
	}
	t->run_ns = run;
	t->delay_ns = delay;
	return got;
}

/*
 * Sample the guest's threads into l->thr (l->nthr of them): the longest
 * any one of them waited for a CPU in the window of win_ns.  A thread
 * seen for the first time has no wait to count yet.
 */
static bool sample_peer(struct sw_lost *l, uint64_t win_ns, uint64_t *longest)
{
	struct sw_lost_thread now[SW_LOST_THREADS];
	unsigned int n = 0, k;
	struct dirent *de;
	char path[64];
	DIR *d;

	*longest = 0;
	if (!l->pid)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)l->pid);
	d = opendir(path);
	if (!d)
		return false;
	while ((de = readdir(d)) && n < SW_LOST_THREADS) {
		uint64_t run, delay, w;
		bool known = false;
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (de->d_name[0] == '.' || *end || tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/schedstat",
			 (int)l->pid, tid);
		if (!read_two(path, &run, &delay))
			continue;
		memset(&now[n], 0, sizeof(now[n]));
		for (k = 0; k < l->nthr; k++) {
			if (l->thr[k].tid == (pid_t)tid) {
				now[n] = l->thr[k];
				known = true;
				break;
			}
		}
		now[n].tid = (pid_t)tid;
		w = thread_wait(&now[n], run, delay,
				runnable((int)l->pid, tid), known, win_ns);
		if (w > *longest)
			*longest = w;
		n++;
	}
	closedir(d);
	memcpy(l->thr, now, n * sizeof(now[0]));
	l->nthr = n;
	return n > 0;
}

void lost_sample(struct sw *sw, struct sw_port *p)
{
	struct sw_lost *l = &p->qos.lost;
	uint64_t win = l->sampled_ns ? sw->now_ns - l->sampled_ns : 0;
	uint64_t wait = 0;
	bool was_ok = l->sampled_ns && l->peer_ok;
	bool peer_ok = sample_peer(l, win, &wait);

	if (was_ok && peer_ok)
		l->excuse_ns += wait;
	l->peer_ok = peer_ok;
	l->sampled_ns = sw->now_ns ? sw->now_ns : 1;
}

/*
 * Split what the hold lost so far: the guest's waits in the hold excuse
 * it up to their length.  A wait is reported when it ends, often after
 * the time it cost was lost, so the split is made over the whole hold,
 * not per window; what it leaves of the waits stays for the rest of the
 * hold, and nothing of them for the next.
 */
static void lost_settle(struct sw *sw, struct sw_port *p, bool end)
{
	struct sw_lost *l = &p->qos.lost;
	double host;

	lost_sample(sw, p);
	host = fmin(l->pending_ns, (double)l->excuse_ns);
	p->qos.lost_host_ns += host;
	p->qos.lost_recv_ns += l->pending_ns - host;
	l->excuse_ns -= (uint64_t)host;
	l->pending_ns = 0;
	if (end) {
		l->excuse_ns = 0;
		l->in_hold = false;
	}
}

void lost_held(struct sw *sw, struct sw_port *p)
{
	struct sw_lost *l = &p->qos.lost;

	if (!l->in_hold) {
		/* Waits before the hold excuse nothing in it. */
		lost_sample(sw, p);
		l->excuse_ns = 0;
		l->in_hold = true;
	} else if (sw->now_ns - l->sampled_ns >= LOST_WINDOW_NS) {
		lost_sample(sw, p);
	}
}

void lost_end(struct sw *sw, struct sw_port *p)
{
	struct sw_lost *l = &p->qos.lost;

	if (!l->in_hold)
		return;
	if (l->pending_ns > 0) {
		lost_settle(sw, p, true);
	} else {
		l->excuse_ns = 0;
		l->in_hold = false;
	}
}

void lost_add(struct sw *sw, struct sw_port *p, bool held, double ns)
{
	struct sw_qos_port *q = &p->qos;

	if (ns <= 0)
		return;
	q->lost_line_ns += ns;
	if (!held) {
		q->lost_host_ns += ns;
		return;
	}
	q->lost.pending_ns += ns;
	if (sw->now_ns - q->lost.sampled_ns >= LOST_WINDOW_NS)
		lost_sample(sw, p);
}

void lost_flush(struct sw *sw, struct sw_port *p)
{
	if (p->qos.lost.pending_ns > 0)
		lost_settle(sw, p, false);
}

void lost_set_pid(struct sw_port *p, pid_t pid)
{
	struct sw_lost *l = &p->qos.lost;

	if (pid == l->pid)
		return;
	/* Another process: its threads' waits start from their next sample. */
	l->pid = pid;
	l->nthr = 0;
	l->peer_ok = false;
}
