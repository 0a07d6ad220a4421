// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap monitor [--json] [--count N] [--timeout SECONDS]: print the
 * events of the "events" multicast group, one line each, as they come.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netlink/genl/ctrl.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "event.h"
#include "format.h"
#include "format_json.h"
#include "nl.h"

#define MONITOR_RCVBUF	(1 << 20)

struct monitor {
	int family;
	bool json;
	unsigned long count;		/* 0: no limit */
	unsigned long seen;
	struct p2pmap_event ev;
};

static int monitor_msg(struct nl_msg *msg, void *arg)
{
	struct monitor *m = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct timespec ts;
	bool shown;

	if (nlh->nlmsg_type != m->family || event_parse(nlh, &m->ev))
		return NL_SKIP;
	/* The kernel sends no time: the moment it reached us. */
	clock_gettime(CLOCK_REALTIME, &ts);
	m->ev.time_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	shown = m->json ? json_event(stdout, &m->ev) :
			  format_event(stdout, &m->ev);
	fflush(stdout);
	if (shown && m->count && ++m->seen >= m->count)
		return NL_STOP;
	return NL_OK;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_args(int argc, char **argv, struct monitor *m,
		      double *timeout)
{
	struct cmd_getopt g;
	unsigned long v;
	char *end;
	int r;

	*timeout = -1;
	cmd_getopt_init(&g, "monitor", NULL, argc, argv);
	while ((r = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--json")) {
			m->json = true;
		} else if (cmd_opt_is(&g, "--count")) {
			errno = 0;
			v = strtoul(g.arg, &end, 10);
			if (errno || end == g.arg || *end || !v ||
			    g.arg[0] == '-') {
				fprintf(stderr, "p2pmap: invalid count \"%s\" (a positive number)\n",
					g.arg);
				return -1;
			}
			m->count = v;
		} else if (cmd_opt_is(&g, "--timeout")) {
			errno = 0;
			*timeout = strtod(g.arg, &end);
			if (errno || end == g.arg || *end ||
			    !(*timeout >= 0) || *timeout > INT_MAX / 1000) {
				fprintf(stderr, "p2pmap: invalid timeout \"%s\" (seconds)\n",
					g.arg);
				return -1;
			}
		} else {
			cmd_getopt_refuse(&g);
			return -1;
		}
	}
	if (r < 0)
		return -1;
	if (g.npos) {
		cmd_getopt_extra(&g, g.pos[0]);
		return -1;
	}
	return 0;
}

/*
 * Register @sk for events (P2PMAP_CMD_EVENTS_LISTEN): outside the host's
 * network namespace the module sends events only where a listener did.
 * A module older than the command sends them everywhere: not an error.
 */
static int events_listen(struct p2pmap_nl *nl, struct nl_sock *sk)
{
	struct p2pmap_nl ev = { .sk = sk, .family = nl->family };
	int err = pnl_do(&ev, P2PMAP_CMD_EVENTS_LISTEN, NULL, NULL, NULL, NULL);

	if (!err || err == -EOPNOTSUPP)
		return 0;
	pnl_perror(&ev.error, "monitor");
	nl->error = ev.error;
	return -1;
}

/*
 * The events socket, registered and joined to the group; NULL after
 * printing why not, kept in nl->error (for cmd_exit_nl()).
 */
static struct nl_sock *events_socket(struct p2pmap_nl *nl, struct monitor *m)
{
	struct pnl_error e = { .err = -EPERM };
	struct nl_sock *sk;
	int grp, err;

	nl->error.err = -EIO;
	nl->error.msg[0] = '\0';

	grp = genl_ctrl_resolve_grp(nl->sk, P2PMAP_GENL_NAME,
				    P2PMAP_MCGRP_EVENTS);
	if (grp < 0) {
		fprintf(stderr, "p2pmap: monitor: cannot resolve multicast group \"%s\": %s\n",
			P2PMAP_MCGRP_EVENTS, nl_geterror(grp));
		return NULL;
	}
	sk = nl_socket_alloc();
	if (!sk) {
		fprintf(stderr, "p2pmap: cannot allocate netlink socket\n");
		return NULL;
	}
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, monitor_msg, m);
	err = genl_connect(sk);
	if (err < 0) {
		fprintf(stderr, "p2pmap: cannot connect to generic netlink: %s\n",
			pnl_strerror(err));
		nl->error.err = pnl_errno(err);
		goto fail;
	}
	nl_socket_set_buffer_size(sk, MONITOR_RCVBUF, 0);
	pnl_want_ext_ack(sk);
	/* Before joining: no event can arrive while the ack is awaited. */
	if (events_listen(nl, sk))
		goto fail;
	err = nl_socket_add_membership(sk, grp);
	if (err == -NLE_PERM) {
		snprintf(e.msg, sizeof(e.msg),
			 "joining the %s group needs CAP_NET_ADMIN",
			 P2PMAP_MCGRP_EVENTS);
		pnl_perror(&e, "monitor");
		nl->error = e;
		goto fail;
	} else if (err < 0) {
		fprintf(stderr, "p2pmap: monitor: cannot join the %s group: %s\n",
			P2PMAP_MCGRP_EVENTS, nl_geterror(err));
		goto fail;
	}
	return sk;
fail:
	nl_socket_free(sk);
	return NULL;
}

int cmd_monitor(int argc, char **argv)
{
	struct monitor *m = calloc(1, sizeof(*m));
	double timeout, deadline = 0, left;
	struct p2pmap_nl nl;
	struct nl_sock *sk = NULL;
	struct pollfd pfd;
	int ret = EXIT_FAILED, err, n;

	if (!m) {
		fprintf(stderr, "p2pmap: out of memory\n");
		return EXIT_FAILED;
	}
	if (parse_args(argc, argv, m, &timeout)) {
		free(m);
		return EXIT_USAGE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pnl_open_required(&nl)) {
		free(m);
		return cmd_exit_nl(&nl);
	}
	m->family = nl.family;
	sk = events_socket(&nl, m);
	pnl_close(&nl);		/* only needed to resolve the group */
	if (!sk) {
		ret = cmd_exit_nl(&nl);
		goto out;
	}

	cmd_catch_signals();
	if (timeout >= 0)
		deadline = now_s() + timeout;
	pfd.fd = nl_socket_get_fd(sk);
	pfd.events = POLLIN;
	for (;;) {
		left = timeout >= 0 ? deadline - now_s() : -1;
		if (timeout >= 0 && left <= 0)
			break;
		n = poll(&pfd, 1, left < 0 ? -1 : (int)(left * 1000) + 1);
		if (cmd_stopped())
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "p2pmap: monitor: poll: %s\n",
				strerror(errno));
			goto out;
		}
		if (!n)
			continue;	/* the deadline is checked above */
		err = nl_recvmsgs_default(sk);
		if (err == -NLE_NOMEM) {
			/* ENOBUFS: the kernel dropped events for us. */
			fprintf(stderr, "p2pmap: monitor: events lost (receive buffer overrun)\n");
		} else if (err < 0) {
			fprintf(stderr, "p2pmap: monitor: %s\n",
				nl_geterror(err));
			goto out;
		}
		if (m->count && m->seen >= m->count)
			break;
	}
	ret = EXIT_OK;
out:
	if (sk)
		nl_socket_free(sk);
	pnl_close(&nl);
	free(m);
	return ret;
}
