// SPDX-License-Identifier: GPL-2.0
/*
 * CPU cost of rocx-switch per frame forwarded, on the host: two sockets
 * pose as two guests (as QEMU's dgram backend binds them), one offers
 * frames at a fixed rate, the other counts what arrives, and the
 * switch's own CPU time (/proc/PID/stat) is divided by the frames it
 * forwarded.  Not a test: it prints numbers.
 *
 *   make -C tests/bench switch
 *   switch_cost SWITCH_BINARY WORK_DIR [SECONDS]
 *
 * The switch shares the host with three TCG guests in the incast group,
 * so its cost per frame is time the guests do not get.  The workloads:
 * a port with no line rate (what a plain fabric pays), and a port at 60
 * Mb/s offered more than that (the incast's bottleneck: every frame
 * leaves on a timer, since the token bucket holds none in advance).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FRAME_LEN	1100	/* a RoCE packet of path MTU 1024 */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct workload {
	const char *name;
	const char *qos;	/* --qos of the receiving port, or NULL */
	unsigned int fps;	/* frames offered per second */
};

static const struct workload workloads[] = {
	{ "free port, 5000 frames/s", NULL, 5000 },
	{ "free port, 20000 frames/s", NULL, 20000 },
	{ "60 Mb/s port, below its rate", "port=1 rate=60", 5000 },
	{ "60 Mb/s port, backlogged", "port=1 rate=60", 8000 },
};

static atomic_long received;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A guest's end of switch port IDX: bound at DIR/gIDX.sock. */
static int guest_socket(const char *dir, int idx, struct sockaddr_un *sw)
{
	struct sockaddr_un me = { .sun_family = AF_UNIX };
	int big = 4 << 20;
	int fd;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	snprintf(me.sun_path, sizeof(me.sun_path), "%s/g%d.sock", dir, idx);
	unlink(me.sun_path);
	if (bind(fd, (struct sockaddr *)&me, sizeof(me))) {
		close(fd);
		return -1;
	}
	/* The receiver must never be what limits the rate. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	memset(sw, 0, sizeof(*sw));
	sw->sun_family = AF_UNIX;
	snprintf(sw->sun_path, sizeof(sw->sun_path), "%s/sw%d.sock", dir, idx);
	return fd;
}

static void *drain(void *arg)
{
	int fd = *(int *)arg;
	char buf[16384];

	for (;;) {
		if (recv(fd, buf, sizeof(buf), 0) > 0)
			atomic_fetch_add(&received, 1);
		else if (errno != EINTR)
			return NULL;
	}
}

/* utime + stime of PID, in seconds. */
static double proc_cpu_s(pid_t pid)
{
	unsigned long ut, st;
	char path[64], line[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(line, sizeof(line), f);
	fclose(f);
	/* The command name may hold spaces: fields count from its ')'. */
	p = p ? strrchr(line, ')') : NULL;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

static pid_t start_switch(const char *exe, const char *dir, const char *qos)
{
	char pidfile[256], log[256];
	pid_t pid;
	int i;

	snprintf(pidfile, sizeof(pidfile), "%s/switch.pid", dir);
	snprintf(log, sizeof(log), "%s/switch.log", dir);
	unlink(pidfile);
	pid = fork();
	if (pid == 0) {
		/* Its counters at exit go to the log, not between the rows. */
		if (!freopen(log, "a", stderr))
			_exit(127);
		if (qos)
			execl(exe, exe, "--dir", dir, "--ports", "2", "--pidfile",
			      pidfile, "--qos", qos, (char *)NULL);
		else
			execl(exe, exe, "--dir", dir, "--ports", "2", "--pidfile",
			      pidfile, (char *)NULL);
		_exit(127);
	}
	for (i = 0; pid > 0 && i < 500; i++) {
		if (access(pidfile, F_OK) == 0)
			return pid;
		usleep(10000);
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

static void frame(unsigned char *f, const unsigned char *dst,
		  const unsigned char *src)
{
	memset(f, 0, FRAME_LEN);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;		/* IEEE local experimental ethertype */
	f[13] = 0xb5;
}

static int run(const char *exe, const char *dir, const struct workload *w,
	       double secs)
{
	static const unsigned char m0[6] = { 2, 0, 0, 0, 0, 0x10 };
	static const unsigned char m1[6] = { 2, 0, 0, 0, 0, 0x11 };
	static const unsigned char bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	unsigned char f[FRAME_LEN];
	struct sockaddr_un sw0, sw1;
	double t0, next, cpu0, cpu1;
	long got;
	pthread_t rx;
	pid_t pid;
	int tx, rxfd;

	tx = guest_socket(dir, 0, &sw0);
	rxfd = guest_socket(dir, 1, &sw1);
	if (tx < 0 || rxfd < 0) {
		perror("switch_cost: socket");
		return -1;
	}
	pid = start_switch(exe, dir, w->qos);
	if (pid < 0) {
		fprintf(stderr, "switch_cost: %s did not start\n", exe);
		return -1;
	}
	/* The receiver speaks first, so the switch knows its port. */
	frame(f, bcast, m1);
	sendto(rxfd, f, 64, 0, (struct sockaddr *)&sw1, sizeof(sw1));
	frame(f, m0, m1);
	sendto(rxfd, f, 64, 0, (struct sockaddr *)&sw1, sizeof(sw1));
	usleep(100000);
	atomic_store(&received, 0);
	pthread_create(&rx, NULL, drain, &rxfd);

	frame(f, m1, m0);
	cpu0 = proc_cpu_s(pid);
	t0 = now_s();
	next = t0;
	while (now_s() - t0 < secs) {
		double d;

		sendto(tx, f, FRAME_LEN, 0, (struct sockaddr *)&sw0, sizeof(sw0));
		next += 1.0 / w->fps;
		d = next - now_s();
		if (d > 0) {
			struct timespec ts = { 0, (long)(d * 1e9) };

			nanosleep(&ts, NULL);
		}
	}
	/*
	 * Rates over the offered time; the CPU time and the frames counted
	 * also take what the switch still held then, which leaves within
	 * its queue's time.
	 */
	usleep(300000);
	cpu1 = proc_cpu_s(pid);
	got = atomic_load(&received);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	pthread_cancel(rx);
	pthread_join(rx, NULL);
	close(tx);
	close(rxfd);
	/* A switch that died early has no /proc entry left to read. */
	if (cpu0 < 0 || cpu1 < 0) {
		fprintf(stderr, "switch_cost: %s: no CPU time for the switch\n",
			w->name);
		return -1;
	}

	printf("%-30s %8u %9.0f %9.1f %7.1f%% %9.1f\n", w->name, w->fps,
	       got / secs, got * FRAME_LEN * 8 / secs / 1e6,
	       100 * (cpu1 - cpu0) / secs,
	       got ? 1e6 * (cpu1 - cpu0) / got : 0);
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 3 ? atof(argv[3]) : 5;
	unsigned int i;

	if (argc < 3 || secs <= 0) {
		fprintf(stderr, "usage: %s SWITCH_BINARY WORK_DIR [SECONDS]\n",
			argv[0]);
		return 2;
	}
	printf("rocx-switch CPU per frame forwarded (%d-byte frames, %.0f s each;\n"
	       " the CPU figure is the switch's own time, user and system)\n",
	       FRAME_LEN, secs);
	printf("%-30s %8s %9s %9s %8s %9s\n", "workload", "offered", "frames/s",
	       "Mb/s", "CPU", "us/frame");
	for (i = 0; i < ARRAY_SIZE(workloads); i++)
		if (run(argv[1], argv[2], &workloads[i], secs))
			return 1;
	printf("host: %ld CPUs\n", sysconf(_SC_NPROCESSORS_ONLN));
	return 0;
}
