// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * uctx_hold: open a rocx device, allocate a PD and keep both until killed.
 *
 * The provider maps the context's doorbell page when the context is
 * opened; this program checks that the mapping is there, says "ready" and
 * then waits for asynchronous events, printing each one.  The guest tests
 * use it to hold a live user context while they unload rocx_ib (which must
 * disassociate it, signalled by IBV_EVENT_DEVICE_FATAL) and to watch port
 * events while the link changes.
 *
 *   uctx_hold [-r READY_FILE] [[-d] DEVICE]
 *
 * DEVICE defaults to the first device whose name starts with "rocx".  On
 * success "ready pid=<pid> pdn_handle=<handle> db=<mapping>" goes to stdout
 * and, if given, to READY_FILE.  Exits 0 on SIGTERM/SIGINT, 1 on a setup
 * error.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static struct ibv_device *find_device(struct ibv_device **list,
				      const char *name)
{
	int i;

	for (i = 0; list[i]; i++) {
		const char *n = ibv_get_device_name(list[i]);

		if (name ? !strcmp(n, name) : !strncmp(n, "rocx", 4))
			return list[i];
	}
	return NULL;
}

/*
 * The doorbell page is a shared mapping of the uverbs character device;
 * find it in our own address space.
 */
static int find_db_mapping(char *line, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, len, f)) {
		if (strstr(line, "/dev/infiniband/uverbs")) {
			line[strcspn(line, " ")] = '\0';
			found = 1;
			break;
		}
	}
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	const char *dev_name = NULL, *ready_file = NULL;
	struct ibv_async_event ev;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct sigaction sa;
	char db[512];
	int opt, err;

	while ((opt = getopt(argc, argv, "d:r:")) != -1) {
		switch (opt) {
		case 'd':
			dev_name = optarg;
			break;
		case 'r':
			ready_file = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-r READY_FILE] [[-d] DEVICE]\n",
				argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		dev_name = argv[optind];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: wake the event read */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	list = ibv_get_device_list(NULL);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	if (!find_device(list, dev_name)) {
		fprintf(stderr, "no device %s\n", dev_name ? dev_name : "rocx*");
		return 1;
	}
	ctx = ibv_open_device(find_device(list, dev_name));
	if (!ctx) {
		perror("ibv_open_device");
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		perror("ibv_alloc_pd");
		return 1;
	}
	if (!find_db_mapping(db, sizeof(db))) {
		fprintf(stderr, "no doorbell page mapped\n");
		return 1;
	}

	printf("ready pid=%d pd_handle=%u db=%s\n", (int)getpid(), pd->handle,
	       db);
	fflush(stdout);
	if (ready_file) {
		FILE *f = fopen(ready_file, "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
			perror(ready_file);
			return 1;
		}
	}

	while (!stop) {
		if (ibv_get_async_event(ctx, &ev)) {
			if (errno == EINTR || stop)
				break;
			/*
			 * After disassociation the event file reports an
			 * error; keep holding the context until killed.
			 */
			pause();
			continue;
		}
		printf("event %s port=%d\n", ibv_event_type_str(ev.event_type),
		       ev.event_type == IBV_EVENT_DEVICE_FATAL ?
		       0 : ev.element.port_num);
		fflush(stdout);
		ibv_ack_async_event(&ev);
	}

	/* The device may be gone: report, but do not fail, on cleanup. */
	err = ibv_dealloc_pd(pd);
	if (err)
		printf("dealloc_pd: %s\n", strerror(err));
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("released\n");
	return 0;
}
