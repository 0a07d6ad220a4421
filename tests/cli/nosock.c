// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the CLI's tests: a netlink socket refused with
 * EACCES, as a security module or a seccomp filter refuses it; every
 * other socket is the real one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dlfcn.h>
#include <sys/socket.h>

int socket(int domain, int type, int protocol)
{
	static int (*real)(int, int, int);

	if (domain == AF_NETLINK) {
		errno = EACCES;
		return -1;
	}
	if (!real)
		real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	return real(domain, type, protocol);
}
