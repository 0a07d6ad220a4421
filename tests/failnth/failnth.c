// SPDX-License-Identifier: GPL-2.0
/*
 * failnth: make the N-th fault-injection point that ONE operation hits fail,
 * and say whether it was hit (tests/guest/faultinject.sh).
 *
 *   failnth N link-add INITIATOR TARGET
 *   failnth N link-del INITIATOR TARGET
 *	The request goes out through the CLI's own netlink code (user/netlink/nl.c);
 *	the family is resolved first, so only the LINK_ADD/DEL request (and
 *	the kernel handler it runs, which genetlink runs in the sending task)
 *	sees the armed count.
 *   failnth N write FILE STRING
 *	open(FILE), then arm, then one write(2) of STRING: a sysfs bind,
 *	unbind, remove or rescan, whose bus notifier callbacks run in this
 *	task.
 *   failnth N insmod MODULE [PARAMS]
 *	open(MODULE), then arm, then finit_module(2): the module's init runs
 *	in this task.
 *   failnth range MODULE KO
 *	Prints "START END" (hex): the span of the loaded MODULE's code, from
 *	the executable sections of its file KO (sizes; .init.* left out: gone
 *	after the load) at the addresses /sys/module/MODULE/sections gives:
 *	what the stack-trace filter's require-start/require-end want.  (The
 *	shell cannot do 64-bit unsigned arithmetic.)
 *   failnth sym SYMBOL
 *	Prints "START END" (hex): SYMBOL's address in /proc/kallsyms and the
 *	next higher one (its extent), for a reject range.
 *
 * /proc/thread-self/fail-nth is per task and is not inherited (see the
 * kernel's Documentation/fault-injection/fault-injection.rst): writing N
 * makes the N-th injection point this task reaches fail (failslab,
 * fail_page_alloc, ... whichever are armed, within their filters: with the
 * stack-trace filter only points with the required text on the stack
 * count); reading it back gives 0 once that happened, else what was left.
 * The arming is the last thing before the syscall, the read the first
 * thing after it (for the netlink request: after its reply, which the
 * kernel queued during sendmsg; recvmsg allocates nothing).
 *
 * Prints one line: "failnth: n=N consumed=0|1 [hit=H] ret=ERRNO-or-0 msg=TEXT"
 * (hit: when the N-th was not reached, how many points the operation hit,
 * so a large N counts them without injecting anything)
 * (msg: the kernel's extended-ack message, or strerror).  Exit status 0 if
 * the operation succeeded, 1 if it failed, 2 on a usage or set-up error.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "link.h"
#include "nl.h"

static int nth_fd = -1;
static long nth_left = -1;	/* what the kernel's count had left, if not reached */

static int arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (n == 0)
		return 0;	/* a dry run: nothing injected */
	if (pwrite(nth_fd, buf, len, 0) != len) {
		perror("failnth: write /proc/thread-self/fail-nth");
		return -1;
	}
	return 0;
}

/* 1 if the armed point was reached (or nothing was armed: 0). */
static int consumed(unsigned int n)
{
	char buf[16] = "";
	ssize_t len;

	if (n == 0)
		return 0;
	len = pread(nth_fd, buf, sizeof(buf) - 1, 0);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	nth_left = atol(buf);
	if (nth_left != 0) {
		/* Not reached: disarm, so nothing later in this task fails. */
		if (pwrite(nth_fd, "0", 1, 0) != 1)
			return -1;
		return 0;
	}
	return 1;
}

static int report(unsigned int n, int c, int err, const char *msg)
{
	printf("failnth: n=%u consumed=%d", n, c);
	if (c == 0 && nth_left > 0)	/* points the operation hit: n - left */
		printf(" hit=%ld", (long)n - nth_left);
	printf(" ret=%d msg=%s\n", err,
	       msg && *msg ? msg : (err ? strerror(-err) : "ok"));
	return err ? 1 : 0;
}

static int do_link(unsigned int n, bool add, const char *a, const char *b)
{
	struct p2pmap_nl nl;
	int err, c;

	if (pnl_open_required(&nl))
		return 2;
	if (arm(n))
		return 2;
	err = add ? link_add(&nl, a, b, false, 0) : link_del(&nl, a, b);
	c = consumed(n);
	report(n, c, err, nl.error.msg);
	pnl_close(&nl);
	return err ? 1 : 0;
}

static int do_write(unsigned int n, const char *file, const char *s)
{
	int fd = open(file, O_WRONLY), err = 0, c;
	ssize_t len = strlen(s);

	if (fd < 0) {
		perror(file);
		return 2;
	}
	if (arm(n))
		return 2;
	if (write(fd, s, len) != len)
		err = -errno;
	c = consumed(n);
	close(fd);
	return report(n, c, err, NULL);
}

static int do_insmod(unsigned int n, const char *ko, const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), err = 0, c;

	if (fd < 0) {
		perror(ko);
		return 2;
	}
	if (arm(n))
		return 2;
	if (syscall(SYS_finit_module, fd, params, 0))
		err = -errno;
	c = consumed(n);
	close(fd);
	return report(n, c, err, NULL);
}

static int do_range(const char *mod, const char *ko)
{
	unsigned long lo = ~0UL, hi = 0, addr;
	const Elf64_Shdr *sh;
	const Elf64_Ehdr *eh;
	const char *names;
	struct stat st;
	char path[512];
	FILE *f;
	int fd, i, ok;

	fd = open(ko, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(ko);
		return 2;
	}
	eh = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (eh == MAP_FAILED || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "failnth: %s: not a 64-bit ELF file\n", ko);
		return 2;
	}
	sh = (const void *)((const char *)eh + eh->e_shoff);
	names = (const char *)eh + sh[eh->e_shstrndx].sh_offset;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *name = names + sh[i].sh_name;

		if ((sh[i].sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
		    (SHF_ALLOC | SHF_EXECINSTR) || !sh[i].sh_size ||
		    !strncmp(name, ".init", 5))
			continue;
		snprintf(path, sizeof(path), "/sys/module/%s/sections/%s", mod,
			 name);
		f = fopen(path, "r");
		if (!f)
			continue;
		ok = fscanf(f, "%lx", &addr) == 1;
		fclose(f);
		if (!ok || !addr)
			continue;
		if (addr < lo)
			lo = addr;
		if (addr + sh[i].sh_size > hi)
			hi = addr + sh[i].sh_size;
	}
	if (!hi) {
		fprintf(stderr, "failnth: no code section of %s found (is it loaded?)\n",
			mod);
		return 2;
	}
	printf("0x%lx 0x%lx\n", lo, hi);
	return 0;
}

static int do_sym(const char *sym)
{
	unsigned long start = 0, end = ~0UL, a;
	char line[512], name[256], type;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		perror("/proc/kallsyms");
		return 2;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &a, &type, name) == 3 &&
		    !strcmp(name, sym))
			start = a;
	if (!start) {
		fprintf(stderr, "failnth: %s not in /proc/kallsyms (or addresses hidden)\n",
			sym);
		fclose(f);
		return 2;
	}
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx", &a) == 1 && a > start && a < end)
			end = a;
	fclose(f);
	printf("0x%lx 0x%lx\n", start, end);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int n;
	char *end;

	if (argc == 4 && !strcmp(argv[1], "range"))
		return do_range(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "sym"))
		return do_sym(argv[2]);
	if (argc < 3)
		goto usage;
	n = strtoul(argv[1], &end, 10);
	if (*end)
		goto usage;
	/*
	 * N = 0 arms nothing: it also runs where the kernel has no fault
	 * injection (the races suite's set-up on Debian's kernels).
	 */
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nth_fd < 0 && n) {
		perror("failnth: /proc/thread-self/fail-nth");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[2], "link-add") && argc == 5)
		return do_link(n, true, argv[3], argv[4]);
	if (!strcmp(argv[2], "link-del") && argc == 5)
		return do_link(n, false, argv[3], argv[4]);
	if (!strcmp(argv[2], "write") && argc == 5)
		return do_write(n, argv[3], argv[4]);
	if (!strcmp(argv[2], "insmod") && (argc == 4 || argc == 5))
		return do_insmod(n, argv[3], argc == 5 ? argv[4] : "");
usage:
	fprintf(stderr, "usage: failnth N link-add|link-del INITIATOR TARGET\n"
		"       failnth N write FILE STRING\n"
		"       failnth N insmod MODULE [PARAMS]\n"
		"       failnth range MODULE KO\n"
		"       failnth sym SYMBOL\n");
	return 2;
}
