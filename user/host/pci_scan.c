// SPDX-License-Identifier: GPL-2.0
/* A libpci scan that survives a device leaving while it is read. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>

#include "pci_scan.h"

/* The CLI is single-threaded: one scan at a time. */
static sigjmp_buf scan_env;
static char scan_msg[256];

/*
 * libpci's error callback must not return: it jumps back to the scan,
 * which gives up that pci_access (its state is half-built) and retries.
 */
static void __attribute__((noreturn)) scan_error(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(scan_msg, sizeof(scan_msg), msg, ap);
	va_end(ap);
	siglongjmp(scan_env, 1);
}

/* A config space that has gone reads as all-ones; no need to say so. */
static void scan_quiet(char *msg, ...)
{
	(void)msg;
}

static int scan_once(const char *sysfs, pci_scan_fn fn, void *arg)
{
	/* volatile: read after siglongjmp */
	struct pci_access *volatile pacc;
	volatile int scanning = 0;
	int err;

	pacc = pci_alloc();
	if (!pacc)
		return -ENOMEM;
	pacc->error = scan_error;
	pacc->warning = scan_quiet;
	if (sysfs) {
		pacc->method = PCI_ACCESS_SYS_BUS_PCI;
		pci_set_param(pacc, "sysfs.path", (char *)sysfs);
	}
	if (sigsetjmp(scan_env, 0)) {
		/* Leaked on purpose: libpci may be halfway through a list. */
		return scanning ? -EAGAIN : -ENODEV;
	}
	pci_init(pacc);
	scanning = 1;
	pci_scan_bus(pacc);
	err = fn(pacc, arg);
	pci_cleanup(pacc);
	return err;
}

int pci_scan_guarded(const char *sysfs, pci_scan_fn fn, void *arg,
		     char *why, size_t len)
{
	int err = -EAGAIN, i;

	for (i = 0; i < PCI_SCAN_TRIES && err == -EAGAIN; i++) {
		scan_msg[0] = '\0';
		err = scan_once(sysfs, fn, arg);
	}
	if (why && len)
		snprintf(why, len, "%s", scan_msg);
	return err;
}
