/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands.  Each returns the process exit code. */
#ifndef P2PMAP_CMD_H
#define P2PMAP_CMD_H

#include <stdbool.h>

/* Exit codes */
#define EXIT_OK		0
#define EXIT_RUNTIME	1	/* runtime or kernel error */
#define EXIT_USAGE	2	/* bad arguments, malformed address */

/* --no-check: send addresses to the kernel as given (for tests). */
extern bool opt_no_check;

/* argv[0] is the subcommand's name. */
int cmd_list(int argc, char **argv);
int cmd_link(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_faults(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_nccl_check(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
/* "link flush", "config apply": in files of their own. */
int link_flush(int argc, char **argv);
/* --version: the CLI's @cli version and the loaded module's. */
int cmd_version(const char *cli);
int config_apply(const char *path, bool dry_run);

/* Let SIGINT and SIGTERM end a --watch or monitor loop cleanly (exit 0). */
void cmd_catch_signals(void);
bool cmd_stopped(void);

#endif /* P2PMAP_CMD_H */
