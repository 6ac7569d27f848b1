// SPDX-License-Identifier: GPL-2.0
/*
 * The control socket's client: rocx-switch ctl SOCKET [COMMAND [WORD]...]
 * sends one request, or each line of standard input, to a running
 * switch's control socket (ctl_server.c) and prints the answers.  Its
 * exit status tells a refused request (1) from a switch it could not
 * reach or that did not answer (2), so scripts can act on either.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "switch.h"

/* How long the client waits for an answer. */
#define CTL_CLIENT_TIMEOUT_S	30

static void client_usage(FILE *out)
{
	fprintf(out,
		"Usage: rocx-switch ctl SOCKET [COMMAND [WORD]...]\n"
		"Send COMMAND to the switch's control socket (--ctl) and print\n"
		"its answer; without COMMAND, send each line of standard input.\n"
		"Exits 0 if every command succeeded, 1 if one failed (the error\n"
		"goes to stderr), 2 if the switch could not be reached.\n"
		"'rocx-switch ctl SOCKET help' lists the commands.\n");
}

static int send_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One request and its answer; 0 ok, 1 refused, 2 no answer. */
static int client_request(int fd, FILE *in, const char *line)
{
	char *ans = NULL;
	size_t cap = 0;
	int rc = 2;

	if (send_all(fd, line, strlen(line)) || send_all(fd, "\n", 1)) {
		perror("rocx-switch ctl: send");
		return 2;
	}
	while (getline(&ans, &cap, in) > 0) {
		ans[strcspn(ans, "\n")] = '\0';
		if (!strcmp(ans, "ok")) {
			rc = 0;
			break;
		}
		if (!strncmp(ans, "error: ", 7)) {
			fprintf(stderr, "rocx-switch ctl: %s\n", ans + 7);
			rc = 1;
			break;
		}
		printf("%s\n", ans);
	}
	if (rc == 2)
		fprintf(stderr, "rocx-switch ctl: no answer from the switch\n");
	free(ans);
	fflush(stdout);
	return rc;
}

int ctl_client_main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = CTL_CLIENT_TIMEOUT_S };
	char *line = NULL;
	size_t cap = 0;
	int fd, i, rc = 0, r;
	FILE *in;

	if (argc < 2 || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "--help")) {
		client_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "rocx-switch ctl: %s: path too long\n", argv[1]);
		return 2;
	}
	memcpy(sa.sun_path, argv[1], strlen(argv[1]) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "rocx-switch ctl: %s: %s\n", argv[1],
			strerror(errno));
		return 2;
	}
	in = fdopen(dup(fd), "r");
	if (!in) {
		perror("rocx-switch ctl");
		close(fd);
		return 2;
	}
	if (argc > 2) {
		size_t len = 0;

		for (i = 2; i < argc; i++)
			len += strlen(argv[i]) + 1;
		line = malloc(len);
		if (!line) {
			perror("rocx-switch ctl");
			rc = 2;
			goto out;
		}
		line[0] = '\0';
		for (i = 2; i < argc; i++) {
			if (i > 2)
				strcat(line, " ");
			strcat(line, argv[i]);
		}
		if (strchr(line, '\n')) {
			fprintf(stderr, "rocx-switch ctl: one command, no newlines\n");
			rc = 2;
		} else {
			rc = client_request(fd, in, line);
		}
	} else {
		while (getline(&line, &cap, stdin) > 0) {
			line[strcspn(line, "\n")] = '\0';
			r = client_request(fd, in, line);
			if (r > rc)
				rc = r;
			if (r == 2)
				break;
		}
	}
out:
	free(line);
	fclose(in);
	close(fd);
	return rc;
}
