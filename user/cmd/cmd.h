/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands.  Each returns the process exit code. */
#ifndef P2PMAP_CMD_H
#define P2PMAP_CMD_H

#include <stdbool.h>

/*
 * Exit codes: one table for every command, the one "p2pmap help" and
 * p2pmap(8) EXIT STATUS show (keep the three the same).
 */
#define EXIT_OK		0	/* success: the answer is yes */
#define EXIT_FAILED	1	/* the answer is no, or the change failed */
#define EXIT_USAGE	2	/* bad arguments, malformed address, unknown device */
#define EXIT_NO_GPU	3	/* no GPU: no CUDA driver, fewer than two devices */
#define EXIT_NO_MODULE	4	/* the p2pmap module is not loaded (or installed) */
#define EXIT_PERMISSION	5	/* a capability is missing (EPERM, EACCES) */

/* The table as "p2pmap help" prints it. */
#define EXIT_TABLE \
	"Exit status (the same for every command):\n" \
	"  0  success\n" \
	"  1  the answer is no, or the change failed: a failed check, a direction\n" \
	"     that does not work, a change the kernel refused, a link that \"link\n" \
	"     add\" leaves not mapped (pending, blocked, error), a runtime error\n" \
	"  2  usage: bad arguments, a malformed address, an unknown device\n" \
	"  3  no GPU: no usable CUDA driver (not found, not loadable, cuInit\n" \
	"     failed: named, with the fix) or fewer than two CUDA devices (verify),\n" \
	"     fewer than two devices to link (link auto)\n" \
	"  4  the p2pmap module is not loaded, or not installed (list still lists\n" \
	"     the PCI devices; metrics and --version report it and exit 0)\n" \
	"  5  permission denied: a capability is missing (a change needs\n" \
	"     CAP_NET_ADMIN, CAP_SYS_ADMIN and CAP_SYS_RAWIO), a change was sent\n" \
	"     from a container (run it on the host), reads from containers are\n" \
	"     refused (netns_reads=N), or a file that config save writes is not\n" \
	"     writable\n"

struct p2pmap_nl;
/*
 * The exit code of a failed netlink step on @nl (pnl_open(),
 * pnl_open_required() or a request; nl->error says what failed):
 * EXIT_NO_MODULE when the p2pmap family is not registered,
 * EXIT_PERMISSION for EPERM or EACCES (a missing capability, from the
 * kernel or from the socket), EXIT_USAGE for ENODEV (a named device the
 * module does not track), otherwise EXIT_FAILED.
 */
int cmd_exit_nl(const struct p2pmap_nl *nl);
/*
 * The same for a bare negative errno (a file written, or a request whose
 * ENODEV is no usage error): EPERM and EACCES are EXIT_PERMISSION, the
 * rest EXIT_FAILED.
 */
int cmd_exit_errno(int err);

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
int cmd_proxmox_hook(int argc, char **argv);
int cmd_help(int argc, char **argv);
/* status's report, for "status" and "link show". */
int status_show(bool json);
/* "link flush", "config apply": in files of their own. */
int link_flush(int argc, char **argv);
/* --version: the CLI's @cli version and the loaded module's. */
int cmd_version(const char *cli);
int config_apply(const char *path, bool dry_run, bool force);

struct pve_host;
struct pve_guest;
/*
 * proxmox-hook's VM pre-start (proxmox_hook_vm.c): EXIT_OK, or
 * EXIT_FAILED, said on stderr with the fix, while a p2pmap link under
 * @root touches a device of VM @g.
 */
int proxmox_hook_vm(const char *root, const struct pve_host *p,
		    const struct pve_guest *g);

struct p2pmap_nl;
struct policy_req;
/*
 * Before @op ("policy set") changes the policy to @req: the devices it
 * would stop admitting and the mapped links it would unmap, printed; in a
 * dry run that is all.  Returns the exit code; *go says whether to go
 * ahead (false in a dry run, and when a GPU of those links is in use and
 * not @force).
 */
int policy_guard(struct p2pmap_nl *nl, const struct policy_req *req,
		 const char *op, bool dry_run, bool force, bool *go);

/* Let SIGINT and SIGTERM end a --watch or monitor loop cleanly (exit 0). */
void cmd_catch_signals(void);
bool cmd_stopped(void);

#endif /* P2PMAP_CMD_H */
