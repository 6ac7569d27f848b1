// SPDX-License-Identifier: GPL-2.0
/*
 * rocx-switch: joins QEMU guests' dgram network backends into one Ethernet
 * segment.  See switch.h for the frame pipeline and --help for usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "switch.h"

struct sw_opts {
	const char *dir;
	unsigned int nports;
	const char *pcap;
	const char *pidfile;
	unsigned int stats_sec;		/* 0: no periodic report */
	unsigned int age_sec;
	unsigned int queue_limit;
	const char *ctl;		/* control socket; default DIR/ctl.sock */
	bool seed_given;
	uint64_t seed;
	unsigned int impair_hold;
	unsigned int nimpair;
	const char *impair[SW_MAX_PORTS * SW_DIR_NUM];
	unsigned int nqos;
	const char *qos[SW_MAX_PORTS * SW_NUM_PRIO];
	const char *buffer;		/* shared buffer bytes */
	const char *series;		/* time-series file */
	const char *series_interval;
	bool timed;
	bool direct;
	uint64_t latency_ns;
	uint64_t epoch_ns;
	double rate_mbps;
	unsigned int stall_ms;
	const char *evlog;
};

/* Timed mode's defaults: a short datacenter cable, a 25 Gb/s port. */
#define SW_DEF_LATENCY_NS	1000
#define SW_DEF_TIMED_MBPS	25000

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: rocx-switch --dir DIR --ports N [OPTION]...\n"
		"       rocx-switch ctl SOCKET [COMMAND [WORD]...]\n"
		"Ethernet switch for QEMU guests on unix datagram sockets.\n"
		"Port K binds DIR/swK.sock and sends to DIR/gK.sock; give each guest\n"
		"  -netdev dgram,id=n0,local.type=unix,local.path=DIR/gK.sock,\n"
		"          remote.type=unix,remote.path=DIR/swK.sock\n"
		"\n"
		"  -d, --dir DIR          directory for the sockets (created if absent)\n"
		"  -n, --ports N          number of ports, 1..%d\n"
		"  -w, --pcap FILE        capture every forwarded frame, at ingress (one\n"
		"                         port's, while running: the control socket's\n"
		"                         'capture')\n"
		"  -p, --pidfile FILE     write the pid once all ports are bound\n"
		"  -s, --stats[=SEC]      also print counters every SEC s (default 10)\n"
		"  -a, --age SEC          MAC table ageing time (default %d)\n"
		"  -q, --queue-limit N    frames an egress port may queue, 1..4096 (default %d)\n"
		"  -c, --ctl PATH         control socket (default DIR/ctl.sock)\n"
		"  -i, --impair 'SPEC'    impair frames at start, as the control socket's\n"
		"                         'impair SPEC' (e.g. 'port=1 dir=egress loss=1%%');\n"
		"                         repeatable\n"
		"  -S, --seed N           seed of the impairments' random streams (default:\n"
		"                         random, printed at start: replay a run with it)\n"
		"  -H, --impair-hold N    frames all delay lines may hold together (default %d)\n"
		"  -Q, --qos 'SPEC'       line rate, PFC, ETS, RED/ECN at start, as the control\n"
		"                         socket's 'qos SPEC' (e.g. 'port=1 rate=100'); repeatable\n"
		"  -B, --buffer BYTES     shared buffer size (default 0: no limit)\n"
		"  -T, --series FILE      write a JSON line of depths, rates, marks and pauses\n"
		"                         every --series-interval (default 100ms)\n"
		"      --series-interval T\n"
		"\n"
		"Port K also listens on DIR/chK.sock for a rocx NIC's fabric channel.\n"
		"      --timed            run on a virtual clock with the NICs' channels\n"
		"      --direct           untimed: two NICs with rings and nothing set\n"
		"                         between them write each other's rings\n"
		"      --latency NS       link latency of every port (default %d);\n"
		"                         per port: --qos 'port=K latency=NS'\n"
		"      --epoch NS         what a port that has not joined promises\n"
		"                         (default 0)\n"
		"      --rate MBPS        line rate of ports given none (default %d)\n"
		"      --stall-ms MS      a wait that receives nothing this long fails\n"
		"                         the run (default %d)\n"
		"      --event-log FILE   timed: a line per event executed\n"
		"  -h, --help             this text\n"
		"\n"
		"Counters go to stderr on SIGUSR1 and at exit; SIGTERM or SIGINT\n"
		"stops the switch and removes its sockets.  'rocx-switch ctl SOCKET help'\n"
		"lists the control socket's commands.\n",
		SW_MAX_PORTS, SW_DEF_AGE_SEC, SW_DEF_QUEUE_LIMIT,
		SW_DEF_IMPAIR_HOLD, SW_DEF_LATENCY_NS, SW_DEF_TIMED_MBPS,
		ROCX_FAB_STALL_MS);
}

static int parse_uint(const char *s, unsigned int min, unsigned int max,
		      unsigned int *val)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*val = (unsigned int)v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct sw_opts *o)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "ports", required_argument, NULL, 'n' },
		{ "pcap", required_argument, NULL, 'w' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "stats", optional_argument, NULL, 's' },
		{ "age", required_argument, NULL, 'a' },
		{ "queue-limit", required_argument, NULL, 'q' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "impair", required_argument, NULL, 'i' },
		{ "seed", required_argument, NULL, 'S' },
		{ "impair-hold", required_argument, NULL, 'H' },
		{ "qos", required_argument, NULL, 'Q' },
		{ "buffer", required_argument, NULL, 'B' },
		{ "series", required_argument, NULL, 'T' },
		{ "series-interval", required_argument, NULL, 'I' },
		{ "timed", no_argument, NULL, 'X' },
		{ "direct", no_argument, NULL, 'D' },
		{ "latency", required_argument, NULL, 'L' },
		{ "epoch", required_argument, NULL, 'E' },
		{ "rate", required_argument, NULL, 'R' },
		{ "stall-ms", required_argument, NULL, 'W' },
		{ "event-log", required_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned long long seed, v;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "d:n:w:p:s::a:q:c:i:S:H:Q:B:T:h",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dir = optarg;
			break;
		case 'n':
			if (parse_uint(optarg, 1, SW_MAX_PORTS, &o->nports))
				goto bad;
			break;
		case 'w':
			o->pcap = optarg;
			break;
		case 'p':
			o->pidfile = optarg;
			break;
		case 's':
			o->stats_sec = 10;
			if (optarg && parse_uint(optarg, 1, 86400, &o->stats_sec))
				goto bad;
			break;
		case 'a':
			if (parse_uint(optarg, 1, 1000000, &o->age_sec))
				goto bad;
			break;
		case 'q':
			if (parse_uint(optarg, 1, 4096, &o->queue_limit))
				goto bad;
			break;
		case 'c':
			o->ctl = optarg;
			break;
		case 'i':
			if (o->nimpair == ARRAY_SIZE(o->impair)) {
				fprintf(stderr, "rocx-switch: too many --impair\n");
				return -1;
			}
			o->impair[o->nimpair++] = optarg;
			break;
		case 'S':
			errno = 0;
			seed = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-')
				goto bad;
			o->seed = seed;
			o->seed_given = true;
			break;
		case 'H':
			if (parse_uint(optarg, 1, 1000000, &o->impair_hold))
				goto bad;
			break;
		case 'Q':
			if (o->nqos == ARRAY_SIZE(o->qos)) {
				fprintf(stderr, "rocx-switch: too many --qos\n");
				return -1;
			}
			o->qos[o->nqos++] = optarg;
			break;
		case 'B':
			o->buffer = optarg;
			break;
		case 'T':
			o->series = optarg;
			break;
		case 'I':
			o->series_interval = optarg;
			break;
		case 'X':
			o->timed = true;
			break;
		case 'D':
			o->direct = true;
			break;
		case 'L':
			if (ctl_parse_ns(optarg, &o->latency_ns) ||
			    !o->latency_ns || o->latency_ns > UINT32_MAX)
				goto bad;
			break;
		case 'E':
			if (ctl_parse_ns(optarg, &o->epoch_ns))
				goto bad;
			break;
		case 'R':
			o->rate_mbps = strtod(optarg, &end);
			if (end == optarg || *end || !(o->rate_mbps > 0) ||
			    o->rate_mbps > 1e6)
				goto bad;
			break;
		case 'V':
			o->evlog = optarg;
			break;
		case 'W':
			if (ctl_parse_uint(optarg, 86400000, &v) || !v)
				goto bad;
			o->stall_ms = (unsigned int)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc || !o->dir || !o->nports) {
		fprintf(stderr, "rocx-switch: --dir and --ports are required\n");
		usage(stderr);
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "rocx-switch: bad value '%s' for -%c\n", optarg, c);
	return -1;
}

static int write_pidfile(const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;

	/* Written whole then renamed: a reader never sees a partial pid. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -1;
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%d\n", (int)getpid());
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static void sample_clocks(struct sw *sw)
{
	struct timespec mono;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &sw->now_rt);
	sw->now_ms = (uint64_t)mono.tv_sec * 1000 + mono.tv_nsec / 1000000;
	sw->now_ns = (uint64_t)mono.tv_sec * 1000000000 + mono.tv_nsec;
}

/* A seed nobody chose: printed at start, so the run can be replayed. */
static uint64_t random_seed(void)
{
	uint64_t seed;
	struct timespec ts;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == sizeof(seed))
		return seed;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec) ^
	       (uint64_t)getpid() << 32;
}

/* One start option as the control socket's "VERB SPEC". */
static int apply_one(struct sw *sw, const char *opt, const char *verb,
		     const char *spec)
{
	char line[CTL_ERR_LEN + 16], err[CTL_ERR_LEN];
	FILE *null = fopen("/dev/null", "w");
	int rc;

	if (snprintf(line, sizeof(line), "%s %s", verb, spec) >=
	    (int)sizeof(line)) {
		fprintf(stderr, "rocx-switch: --%s '%s': too long\n", opt, spec);
		if (null)
			fclose(null);
		return -1;
	}
	rc = ctl_exec(sw, line, null ? null : stderr, err, sizeof(err));
	if (null)
		fclose(null);
	if (rc)
		fprintf(stderr, "rocx-switch: --%s '%s': %s\n", opt, spec, err);
	return rc;
}

/* The --impair and --qos options, through the control socket's parser. */
static int apply_impair(struct sw *sw, const struct sw_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nimpair; i++)
		if (apply_one(sw, "impair", "impair", o->impair[i]))
			return -1;
	return 0;
}

static int apply_qos(struct sw *sw, const struct sw_opts *o)
{
	char spec[CTL_ERR_LEN];
	unsigned int i;

	if (o->buffer) {
		snprintf(spec, sizeof(spec), "size=%s", o->buffer);
		if (apply_one(sw, "buffer", "buffer", spec))
			return -1;
	}
	for (i = 0; i < o->nqos; i++)
		if (apply_one(sw, "qos", "qos", o->qos[i]))
			return -1;
	if (o->series) {
		if (snprintf(spec, sizeof(spec), "file=%s%s%s", o->series,
			     o->series_interval ? " interval=" : "",
			     o->series_interval ? o->series_interval : "") >=
		    (int)sizeof(spec)) {
			fprintf(stderr, "rocx-switch: --series: too long\n");
			return -1;
		}
		if (apply_one(sw, "series", "series", spec))
			return -1;
	}
	return 0;
}

static int setup_signals(struct sw *sw)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u32 = SW_TAG_SIGNAL };
	sigset_t set;
	int fd;

	signal(SIGPIPE, SIG_IGN);
	/*
	 * A capture or series file past the file size limit fails its write
	 * (EFBIG) and stops, instead of the signal ending the switch.
	 */
	signal(SIGXFSZ, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0 || epoll_ctl(sw->epfd, EPOLL_CTL_ADD, fd, &ev))
		return -1;
	return fd;
}

static int setup_timer(struct sw *sw)
{
	struct itimerspec its = {
		.it_interval = { .tv_sec = 1 },
		.it_value = { .tv_sec = 1 },
	};
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u32 = SW_TAG_TIMER };
	int fd;

	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL) ||
	    epoll_ctl(sw->epfd, EPOLL_CTL_ADD, fd, &ev))
		return -1;
	return fd;
}

/* Returns false when the switch should stop. */
static bool handle_signals(struct sw *sw, int sigfd)
{
	struct signalfd_siginfo si;
	bool run = true;

	while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1)
			stats_print(sw, stderr);
		else
			run = false;
	}
	return run;
}

static void handle_timer(struct sw *sw, int tfd, const struct sw_opts *o)
{
	static unsigned int ticks;
	uint64_t expirations;
	unsigned int i;

	if (read(tfd, &expirations, sizeof(expirations)) < 0)
		return;
	for (i = 0; i < sw->nports; i++)
		port_check_peer(sw, &sw->port[i]);
	if (o->stats_sec && ++ticks % o->stats_sec == 0)
		stats_print(sw, stderr);
}

/* One epoll event; false when the switch should stop. */
static bool dispatch(struct sw *sw, const struct sw_opts *o, int sigfd,
		     int tfd, const struct epoll_event *ev)
{
	uint32_t tag = ev->data.u32;
	struct sw_port *p;

	if (SW_TAG_IS_CH_LISTEN(tag)) {
		chan_accept(sw, &sw->port[tag - SW_TAG_CH_LISTEN(0)]);
		return true;
	}
	if (SW_TAG_IS_CH(tag)) {
		p = &sw->port[tag - SW_TAG_CH(0)];
		if (ev->events & EPOLLOUT || chan_ring_wants_room(p))
			egress_service(sw, p);
		if (ev->events & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP))
			chan_rx(sw, p, ev->events);
		return true;
	}
	if (tag == SW_TAG_SIGNAL)
		return handle_signals(sw, sigfd);
	if (tag == SW_TAG_TIMER) {
		handle_timer(sw, tfd, o);
		return true;
	}
	if (tag == SW_TAG_IMPAIR) {
		impair_timer(sw);
		return true;
	}
	if (tag == SW_TAG_QOS) {
		qos_timer(sw);
		return true;
	}
	if (tag == SW_TAG_WATCH) {
		port_watch_event(sw);
		return true;
	}
	if (tag >= SW_TAG_CTL) {
		ctl_event(sw, tag, ev->events);
		return true;
	}
	p = &sw->port[tag];
	if (ev->events & EPOLLOUT)
		egress_service(sw, p);
	if (ev->events & (EPOLLIN | EPOLLERR))
		port_rx(sw, p);
	return true;
}

/*
 * Timed: run every event before the horizon, send what departed and the
 * promises, then wait for records (timed.c).  A wait that receives
 * nothing while a joined link holds the horizon fails the run.
 */
static int run_timed(struct sw *sw, const struct sw_opts *o, int sigfd,
		     int tfd)
{
	struct epoll_event ev[SW_MAX_EVENTS];
	bool running = true;
	char why[64];
	unsigned int port;
	uint64_t wall;
	int n, i;

	sw->wall_progress_ms = wall_ms();
	sw->wall_keepalive_ms = sw->wall_progress_ms;
	sw->started = true;
	sw->wall_start_ms = sw->wall_progress_ms;
	while (running) {
		timed_run_events(sw);
		timed_promise(sw, wall_ms());
		pcap_flush(&sw->pcap);
		capture_flush(sw);
		if (sw->evlog)
			fflush(sw->evlog);
		sw->waits++;
		n = epoll_wait(sw->epfd, ev, SW_MAX_EVENTS,
			       (int)(sw->stall_ms / 4 ? sw->stall_ms / 4 : 1));
		if (n < 0 && errno != EINTR) {
			perror("rocx-switch: epoll_wait");
			return -1;
		}
		for (i = 0; i < n; i++)
			running = dispatch(sw, o, sigfd, tfd, &ev[i]) && running;
		wall = wall_ms();
		if (running && timed_stalled(sw, wall, &port)) {
			snprintf(why, sizeof(why),
				 "stalled: port %u holds the horizon, silent",
				 port);
			timed_report(sw, stderr, why);
			return -1;
		}
	}
	return 0;
}

static int run(struct sw *sw, const struct sw_opts *o, int sigfd, int tfd)
{
	struct epoll_event ev[SW_MAX_EVENTS];
	bool running = true;
	int n, i;

	if (sw->timed)
		return run_timed(sw, o, sigfd, tfd);
	while (running) {
		/* Flush only before sleeping: one write per burst, not per frame. */
		pcap_flush(&sw->pcap);
		capture_flush(sw);
		n = epoll_wait(sw->epfd, ev, SW_MAX_EVENTS, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("rocx-switch: epoll_wait");
			return -1;
		}
		sample_clocks(sw);
		for (i = 0; i < n; i++)
			running = dispatch(sw, o, sigfd, tfd, &ev[i]) && running;
		/* Delayed frames that are due join what this wakeup received. */
		impair_release(sw);
		/* What this wakeup received leaves in as few sends as it can. */
		egress_service_pending(sw);
		direct_update(sw);
		impair_arm(sw);
		qos_arm(sw);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sw_opts o = {
		.latency_ns = SW_DEF_LATENCY_NS,
		.rate_mbps = SW_DEF_TIMED_MBPS,
		.stall_ms = ROCX_FAB_STALL_MS,
		.age_sec = SW_DEF_AGE_SEC,
		.queue_limit = SW_DEF_QUEUE_LIMIT,
		.impair_hold = SW_DEF_IMPAIR_HOLD,
	};
	static struct sw sw = { .imp_tfd = -1, .qos_tfd = -1, .watch_fd = -1 };
	int sigfd = -1, tfd = -1, ret = 1;
	unsigned int i, opened = 0;
	char ctl_path[PATH_MAX];

	if (argc > 1 && !strcmp(argv[1], "ctl"))
		return ctl_client_main(argc - 1, argv + 1);
	if (parse_opts(argc, argv, &o))
		return 2;
	if (!o.ctl) {
		if (snprintf(ctl_path, sizeof(ctl_path), "%s/ctl.sock", o.dir) >=
		    (int)sizeof(ctl_path)) {
			fprintf(stderr, "rocx-switch: %s: path too long\n", o.dir);
			return 2;
		}
		o.ctl = ctl_path;
	}
	if (mkdir(o.dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "rocx-switch: %s: %s\n", o.dir, strerror(errno));
		return 1;
	}

	sw.nports = o.nports;
	sw.timed = o.timed;
	sw.direct = o.direct && !o.timed;
	sw.epoch_ns = o.epoch_ns;
	sw.def_latency_ns = o.latency_ns;
	sw.def_rate_mbps = o.rate_mbps;
	sw.stall_ms = o.stall_ms;
	sw.epfd = epoll_create1(EPOLL_CLOEXEC);
	sw.fdb = malloc(sizeof(*sw.fdb));
	if (sw.epfd < 0 || !sw.fdb) {
		perror("rocx-switch");
		goto out;
	}
	fdb_init(sw.fdb, (uint64_t)o.age_sec * 1000);
	/*
	 * Every queue full, every delay line full and one receive batch:
	 * receive never starves.
	 */
	/* And one per port for a PFC frame being sent. */
	/*
	 * Timed: a port's PFC frames waiting for the wire, and frames
	 * received ahead of their arrival.
	 */
	if (pool_init(&sw.pool, o.nports * o.queue_limit + o.impair_hold +
			       SW_RX_BATCH + o.nports +
			       (o.timed ? o.nports * (SW_NUM_PRIO +
						      SW_ARRIVE_LIMITS *
						      o.queue_limit) : 0))) {
		perror("rocx-switch: buffer pool");
		goto out;
	}
	sigfd = setup_signals(&sw);
	tfd = setup_timer(&sw);
	if (sigfd < 0 || tfd < 0) {
		perror("rocx-switch: signals/timer");
		goto out;
	}
	/* Without it a restarted guest waits for the timer: not fatal. */
	if (port_watch_open(&sw, o.dir))
		fprintf(stderr, "rocx-switch: watching %s: %s\n", o.dir,
			strerror(errno));
	if (o.evlog) {
		sw.evlog = fopen(o.evlog, "w");
		if (!sw.evlog) {
			fprintf(stderr, "rocx-switch: event log %s: %s\n",
				o.evlog, strerror(errno));
			goto out;
		}
	}
	if (o.pcap && pcap_open(&sw.pcap, o.pcap)) {
		fprintf(stderr, "rocx-switch: pcap %s: %s\n", o.pcap,
			strerror(errno));
		goto out;
	}
	/* Virtual time starts at 0 with the run. */
	if (sw.timed)
		timed_set_now(&sw, 0);
	else
		sample_clocks(&sw);
	for (i = 0; i < o.nports; i++) {
		if (port_open(&sw, &sw.port[i], o.dir, i) ||
		    chan_open(&sw, &sw.port[i], o.dir) ||
		    egress_init(&sw.port[i].eg, o.queue_limit))
			goto out_ports;
		opened++;
	}
	if (impair_init(&sw, o.seed_given ? o.seed : random_seed(),
			o.impair_hold)) {
		perror("rocx-switch: impairment timer");
		goto out_ports;
	}
	if (qos_init(&sw)) {
		perror("rocx-switch: QoS timer");
		goto out_ports;
	}
	if (apply_impair(&sw, &o) || apply_qos(&sw, &o)) {
		/* A bad option, as parse_opts() would say. */
		ret = 2;
		goto out_ports;
	}
	for (i = 0; sw.timed && i < o.nports; i++)
		timed_default_rate(&sw, &sw.port[i]);
	if (ctl_open(&sw, o.ctl)) {
		fprintf(stderr, "rocx-switch: control socket %s: %s\n", o.ctl,
			strerror(errno));
		goto out_ports;
	}
	fprintf(stderr, "rocx-switch: seed %" PRIu64 " (--seed replays it)\n",
		sw.seed);
	if (o.pidfile && write_pidfile(o.pidfile)) {
		fprintf(stderr, "rocx-switch: pidfile %s: %s\n", o.pidfile,
			strerror(errno));
		goto out_ports;
	}

	ret = run(&sw, &o, sigfd, tfd) ? 1 : 0;
	if (!ret)
		chan_bye_all(&sw);
	stats_print(&sw, stderr);
	if (sw.timed)
		timed_summary(&sw, stderr);

	if (o.pidfile)
		unlink(o.pidfile);
out_ports:
	ctl_close(&sw);
	qos_fini(&sw);
	impair_fini(&sw);
	/* The port that failed half way still holds its socket. */
	for (i = 0; i < opened + (opened < o.nports); i++) {
		chan_close(&sw, &sw.port[i]);
		port_close(&sw.port[i]);
		egress_fini(&sw.port[i].eg);
	}
out:
	capture_close_all(&sw);
	pcap_close(&sw.pcap);
	if (sw.evlog)
		fclose(sw.evlog);
	pool_fini(&sw.pool);
	free(sw.fdb);
	if (tfd >= 0)
		close(tfd);
	if (sw.watch_fd >= 0)
		close(sw.watch_fd);
	if (sigfd >= 0)
		close(sigfd);
	if (sw.epfd >= 0)
		close(sw.epfd);
	return ret;
}
