// SPDX-License-Identifier: GPL-2.0
/* Exit codes of failures (cmd.h): one answer for every command. */
#include <errno.h>

#include "cmd.h"
#include "nl.h"

int cmd_exit_errno(int err)
{
	return err == -EPERM || err == -EACCES ? EXIT_PERMISSION : EXIT_FAILED;
}

int cmd_exit_nl(const struct p2pmap_nl *nl)
{
	if (nl->no_family)
		return EXIT_NO_MODULE;
	if (nl->error.err == -ENODEV)
		return EXIT_USAGE;
	return cmd_exit_errno(nl->error.err);	/* 0 too: EXIT_FAILED */
}
