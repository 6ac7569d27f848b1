// SPDX-License-Identifier: GPL-2.0
/*
 * Forwarding benchmark of rocx-switch, host only: no guest.
 *
 *   bench_fwd SWITCH [-n FRAMES] [-r RUNS] [-s SIZE,...] [-m MODE,...]
 *
 * Starts the switch with three ports and sends FRAMES frames of each SIZE
 * from port 0 to port 1 (port 2 stays down), in each MODE:
 *   plain   a unix datagram per frame, as QEMU's dgram netdev sends them;
 *   bundle  fabric bundles on the datagram ports (both ends said HELLO);
 *   chan    untimed BUNDLE records on the device-owned channel (chN.sock).
 * The sender keeps at most WINDOW frames in flight (sent, not yet
 * received), fewer than the switch queues, so nothing is dropped and what
 * is measured is the switch forwarding, not its tail drop.  Each row is the
 * median of RUNS runs of frames/s, MB/s (frame bytes, 10^6), and the switch
 * process's CPU time (/proc/PID/schedstat, else utime + stime of
 * /proc/PID/stat) per GB of frames and per frame.  The load generator
 * itself runs on the same cores: frames/s is a floor, CPU per frame is the
 * switch's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rocx/rocx_fabric.h"

#define WINDOW		512
#define QUEUE_LIMIT	"2048"
#define MAX_SIZES	8
#define MAX_RUNS	15
#define BATCH		32
#define BUNDLE_FRAMES	64
#define IDLE_MS		3000

enum mode { M_PLAIN, M_BUNDLE, M_CHAN, M_NUM };
static const char *const mode_names[M_NUM] = { "plain", "bundle", "chan" };

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0xbe, 0x01 };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0xbe, 0x02 };

struct run {
	enum mode mode;
	unsigned int size;
	uint64_t frames;
	int tx, rx;		/* sender's and receiver's sockets */
	atomic_uint_fast64_t got;
	atomic_bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool waiting;		/* the sender sleeps on cond */
};

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, (uint16_t)(v >> 16));
	put_be16(p + 2, (uint16_t)v);
}

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void fab_header(uint8_t *out, uint8_t type, uint16_t count,
		       const uint8_t *src)
{
	static const uint8_t dst[6] = ROCX_FAB_DST_MAC;

	memcpy(out, dst, 6);
	memcpy(out + 6, src, 6);
	put_be16(out + 12, ROCX_FAB_ETHERTYPE);
	put_be32(out + ROCX_FAB_OFF_MAGIC, ROCX_FAB_MAGIC);
	out[ROCX_FAB_OFF_TYPE] = type;
	out[ROCX_FAB_OFF_FLAGS] = 0;
	put_be16(out + ROCX_FAB_OFF_COUNT, count);
	put_be32(out + ROCX_FAB_OFF_MAX_LEN, ROCX_FAB_BUNDLE_MAX);
}

static bool is_fabric(const uint8_t *d, size_t len)
{
	return len >= ROCX_FAB_HLEN && d[0] == 0x01 && d[5] == 0x0e &&
	       get_be16(d + 12) == ROCX_FAB_ETHERTYPE;
}

static void frame_fill(uint8_t *f, unsigned int size, const uint8_t *dst,
		       const uint8_t *src)
{
	memset(f, 0x5a, size);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	/* Local experimental ethertype: no IP header, class 0. */
	put_be16(f + 12, 0x88b5);
}

static int sock_at(const char *dir, const char *name, int type, bool bind_it)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	int sz = 4 << 20;

	if (fd < 0)
		die("socket");
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, name);
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (bind_it) {
		unlink(sa.sun_path);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			die("bind");
	} else if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		die("connect");
	}
	return fd;
}

/* A datagram port's guest end: bound at gN.sock, connected to swN.sock. */
static int guest_sock(const char *dir, unsigned int idx)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "g%u.sock", idx);
	fd = sock_at(dir, name, SOCK_DGRAM, true);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sw%u.sock", dir, idx);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect");
	return fd;
}

static void wait_path(const char *dir, const char *name)
{
	char path[256];
	struct stat st;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (i = 0; i < 500; i++) {
		if (!stat(path, &st))
			return;
		usleep(10000);
	}
	fprintf(stderr, "bench_fwd: %s never appeared\n", path);
	exit(2);
}

/* HELLO on a datagram port or the channel; waits for the HELLO_ACK. */
static void hello(int fd, const uint8_t *src)
{
	uint8_t rec[ROCX_FAB_CTRL_LEN] = { 0 };
	uint8_t ans[ROCX_FAB_BUNDLE_MAX];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	fab_header(rec, ROCX_FAB_HELLO, 0, src);
	if (send(fd, rec, sizeof(rec), 0) != sizeof(rec))
		die("send HELLO");
	for (;;) {
		if (poll(&pfd, 1, 2000) <= 0) {
			fprintf(stderr, "bench_fwd: no HELLO_ACK\n");
			exit(2);
		}
		n = recv(fd, ans, sizeof(ans), 0);
		if (n < 0)
			die("recv HELLO_ACK");
		if (is_fabric(ans, n) && ans[ROCX_FAB_OFF_TYPE] ==
		    ROCX_FAB_HELLO_ACK)
			return;
	}
}

static void *receiver(void *arg)
{
	static uint8_t buf[ROCX_FAB_BUNDLE_MAX];
	struct run *r = arg;
	struct pollfd pfd = { .fd = r->rx, .events = POLLIN };
	uint64_t got = 0;
	ssize_t n;

	while (got < r->frames && !atomic_load(&r->stop)) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(r->rx, buf, sizeof(buf), MSG_DONTWAIT);
		if (n <= 0)
			continue;
		if (is_fabric(buf, n)) {
			if (buf[ROCX_FAB_OFF_TYPE] == ROCX_FAB_BUNDLE)
				got += get_be16(buf + ROCX_FAB_OFF_COUNT);
		} else {
			got++;
		}
		atomic_store(&r->got, got);
		pthread_mutex_lock(&r->lock);
		if (r->waiting)
			pthread_cond_signal(&r->cond);
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/* Until at most WINDOW - want frames are in flight; false: stuck. */
static bool window_wait(struct run *r, uint64_t sent, unsigned int want)
{
	uint64_t last = atomic_load(&r->got), t = now_ns();

	while (sent + want - atomic_load(&r->got) > WINDOW) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&r->lock);
		r->waiting = true;
		if (sent + want - atomic_load(&r->got) > WINDOW)
			pthread_cond_timedwait(&r->cond, &r->lock, &ts);
		r->waiting = false;
		pthread_mutex_unlock(&r->lock);
		if (atomic_load(&r->got) != last) {
			last = atomic_load(&r->got);
			t = now_ns();
		} else if (now_ns() - t > IDLE_MS * 1000000ull) {
			return false;
		}
	}
	return true;
}

static void send_plain(struct run *r, const uint8_t *frame)
{
	struct mmsghdr msgs[BATCH];
	struct iovec iov = { .iov_base = (void *)frame, .iov_len = r->size };
	uint64_t sent = 0;
	unsigned int i, n;
	int ret;

	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	while (sent < r->frames) {
		n = r->frames - sent < BATCH ? r->frames - sent : BATCH;
		if (!window_wait(r, sent, n))
			return;
		ret = sendmmsg(r->tx, msgs, n, 0);
		if (ret < 0 && errno != EINTR)
			die("sendmmsg");
		if (ret > 0)
			sent += ret;
	}
}

static void send_bundles(struct run *r, const uint8_t *frame)
{
	static uint8_t out[ROCX_FAB_BUNDLE_MAX];
	uint64_t sent = 0;
	unsigned int per, i, n;
	uint32_t off;

	per = (ROCX_FAB_BUNDLE_MAX - ROCX_FAB_HLEN) /
	      (ROCX_FAB_ENTRY_HLEN + r->size);
	if (per > BUNDLE_FRAMES)
		per = BUNDLE_FRAMES;
	while (sent < r->frames) {
		n = r->frames - sent < per ? r->frames - sent : per;
		if (!window_wait(r, sent, n))
			return;
		off = ROCX_FAB_HLEN;
		for (i = 0; i < n; i++) {
			put_be16(out + off, (uint16_t)r->size);
			memcpy(out + off + ROCX_FAB_ENTRY_HLEN, frame, r->size);
			off += ROCX_FAB_ENTRY_HLEN + r->size;
		}
		fab_header(out, ROCX_FAB_BUNDLE, (uint16_t)n, mac_a);
		if (send(r->tx, out, off, 0) != (ssize_t)off) {
			if (errno == EINTR)
				continue;
			die("send bundle");
		}
		sent += n;
	}
}

static uint64_t cpu_ns(pid_t pid)
{
	unsigned long long run = 0, ut = 0, st = 0;
	char path[64], line[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (f) {
		int ok = fscanf(f, "%llu", &run) == 1;

		fclose(f);
		if (ok)
			return run;
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f))
		die("stat");
	fclose(f);
	/* Fields 14 and 15, counted after the command's closing parenthesis. */
	p = strrchr(line, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		die("stat fields");
	return (ut + st) * 1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK);
}

struct result {
	double fps, mbps, cpu_gb, cpu_frame_ns;
	uint64_t lost;
};

static void one_run(const char *exe, enum mode mode, unsigned int size,
		    uint64_t frames, struct result *res)
{
	char dir[] = "/tmp/rocx-swbench.XXXXXX";
	uint8_t frame[ROCX_FAB_BUNDLE_MAX], learn[64];
	struct run r = { .mode = mode, .size = size, .frames = frames };
	uint64_t t0, t1, c0, c1, got;
	pthread_t th;
	pid_t pid;
	int status;

	if (!mkdtemp(dir))
		die("mkdtemp");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(exe, exe, "--dir", dir, "--ports", "3", "--queue-limit",
		      QUEUE_LIMIT, (char *)NULL);
		_exit(127);
	}
	wait_path(dir, "sw1.sock");
	wait_path(dir, "ctl.sock");
	if (mode == M_CHAN) {
		r.tx = sock_at(dir, "ch0.sock", SOCK_SEQPACKET, false);
		r.rx = sock_at(dir, "ch1.sock", SOCK_SEQPACKET, false);
	} else {
		r.tx = guest_sock(dir, 0);
		r.rx = guest_sock(dir, 1);
	}
	if (mode != M_PLAIN) {
		hello(r.tx, mac_a);
		hello(r.rx, mac_b);
	}
	/* The switch learns B on port 1 (this frame floods to 0 and 2). */
	frame_fill(learn, sizeof(learn), mac_a, mac_b);
	if (mode == M_CHAN) {
		uint8_t rec[ROCX_FAB_HLEN + ROCX_FAB_ENTRY_HLEN + sizeof(learn)];

		fab_header(rec, ROCX_FAB_BUNDLE, 1, mac_b);
		put_be16(rec + ROCX_FAB_HLEN, sizeof(learn));
		memcpy(rec + ROCX_FAB_HLEN + ROCX_FAB_ENTRY_HLEN, learn,
		       sizeof(learn));
		if (send(r.rx, rec, sizeof(rec), 0) != sizeof(rec))
			die("send learn");
	} else if (send(r.rx, learn, sizeof(learn), 0) != sizeof(learn)) {
		die("send learn");
	}
	usleep(100000);
	/* The sender's end takes the flooded frame: leave it unread. */
	frame_fill(frame, size, mac_b, mac_a);
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	atomic_init(&r.got, 0);
	atomic_init(&r.stop, false);
	if (pthread_create(&th, NULL, receiver, &r))
		die("pthread_create");
	c0 = cpu_ns(pid);
	t0 = now_ns();
	if (mode == M_PLAIN)
		send_plain(&r, frame);
	else
		send_bundles(&r, frame);
	while (atomic_load(&r.got) < frames) {
		uint64_t last = atomic_load(&r.got), t = now_ns();

		while (atomic_load(&r.got) == last &&
		       now_ns() - t < IDLE_MS * 1000000ull)
			usleep(200);
		if (atomic_load(&r.got) == last)
			break;
	}
	t1 = now_ns();
	c1 = cpu_ns(pid);
	atomic_store(&r.stop, true);
	pthread_join(th, NULL);
	got = atomic_load(&r.got);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	close(r.tx);
	close(r.rx);
	{
		char cmd[64];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			fprintf(stderr, "bench_fwd: could not remove %s\n", dir);
	}
	res->lost = frames - got;
	res->fps = got * 1e9 / (double)(t1 - t0);
	res->mbps = res->fps * size / 1e6;
	res->cpu_gb = got ? (c1 - c0) / 1e9 / ((double)got * size / 1e9) : 0;
	res->cpu_frame_ns = got ? (double)(c1 - c0) / (double)got : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	unsigned int sizes[MAX_SIZES] = { 64, 1024, 4096, 8192 };
	unsigned int nsizes = 4, runs = 3, i, k, m;
	bool modes[M_NUM] = { true, true, true };
	uint64_t frames = 100000;
	const char *exe;
	char *tok;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:s:m:")) != -1) {
		switch (opt) {
		case 'n':
			frames = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			runs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 's':
			nsizes = 0;
			for (tok = strtok(optarg, ","); tok && nsizes < MAX_SIZES;
			     tok = strtok(NULL, ","))
				sizes[nsizes++] = (unsigned int)strtoul(tok, NULL, 0);
			break;
		case 'm':
			memset(modes, 0, sizeof(modes));
			for (tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
				for (m = 0; m < M_NUM; m++)
					if (!strcmp(tok, mode_names[m]))
						modes[m] = true;
			}
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || !frames || !runs || runs > MAX_RUNS)
		goto usage;
	for (i = 0; i < nsizes; i++)
		if (sizes[i] < 64 || sizes[i] > 9000)
			goto usage;
	exe = argv[optind];
	signal(SIGPIPE, SIG_IGN);
	printf("switch forwarding, port 0 -> 1, %llu frames, median of %u runs\n",
	       (unsigned long long)frames, runs);
	printf("%-7s %5s %10s %9s %11s %12s %6s\n", "mode", "size", "frames/s",
	       "MB/s", "cpu-s/GB", "cpu-ns/frame", "lost");
	for (m = 0; m < M_NUM; m++) {
		if (!modes[m])
			continue;
		for (i = 0; i < nsizes; i++) {
			double fps[MAX_RUNS], mbps[MAX_RUNS], gb[MAX_RUNS],
			       fr[MAX_RUNS];
			uint64_t lost = 0;

			for (k = 0; k < runs; k++) {
				struct result res;

				one_run(exe, m, sizes[i], frames, &res);
				fps[k] = res.fps;
				mbps[k] = res.mbps;
				gb[k] = res.cpu_gb;
				fr[k] = res.cpu_frame_ns;
				lost += res.lost;
			}
			printf("%-7s %5u %10.0f %9.1f %11.3f %12.0f %6llu\n",
			       mode_names[m], sizes[i], median(fps, runs),
			       median(mbps, runs), median(gb, runs),
			       median(fr, runs), (unsigned long long)lost);
			fflush(stdout);
		}
	}
	return 0;
usage:
	fprintf(stderr,
		"usage: bench_fwd SWITCH [-n FRAMES] [-r RUNS] [-s SIZE,...] [-m plain,bundle,chan]\n");
	return 2;
}
