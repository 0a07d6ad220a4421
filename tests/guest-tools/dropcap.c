// SPDX-License-Identifier: GPL-2.0
/*
 * dropcap CAP[,CAP...] CMD [ARGS...]: run CMD as the current user without
 * the named capabilities (sys_admin, sys_rawio, net_admin), dropped from the
 * effective, permitted, inheritable and bounding sets.  For the guest tests
 * of p2pmap's capability checks (busybox has no capsh).
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int cap_number(const char *name)
{
	static const struct { const char *name; int cap; } caps[] = {
		{ "net_admin", CAP_NET_ADMIN },
		{ "sys_admin", CAP_SYS_ADMIN },
		{ "sys_rawio", CAP_SYS_RAWIO },
	};
	size_t i;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		if (!strcmp(name, caps[i].name))
			return caps[i].cap;
	return -1;
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	char *names, *name;
	int cap;

	if (argc < 3) {
		fprintf(stderr, "usage: dropcap CAP[,CAP...] CMD [ARGS...]\n");
		return 2;
	}
	if (syscall(SYS_capget, &hdr, data)) {
		perror("dropcap: capget");
		return 1;
	}
	names = strdup(argv[1]);
	for (name = strtok(names, ","); name; name = strtok(NULL, ",")) {
		cap = cap_number(name);
		if (cap < 0) {
			fprintf(stderr, "dropcap: unknown capability %s\n",
				name);
			return 2;
		}
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
			perror("dropcap: PR_CAPBSET_DROP");
			return 1;
		}
		data[cap / 32].effective &= ~(1U << (cap % 32));
		data[cap / 32].permitted &= ~(1U << (cap % 32));
		data[cap / 32].inheritable &= ~(1U << (cap % 32));
	}
	free(names);
	/* Keep what is left across exec although we stay uid 0. */
	if (syscall(SYS_capset, &hdr, data)) {
		perror("dropcap: capset");
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "dropcap: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
