// SPDX-License-Identifier: GPL-2.0
/*
 * The commands, their forms and options (cmd_table.h).  An option added to
 * a command's parser belongs here too; tests/man/run.sh then asks for it in
 * the command's page, man/p2pmap-NAME.8, and in completion/p2pmap.bash.
 */
#include <string.h>

#include "cmd.h"
#include "cmd_table.h"
#include "config.h"

#define FORMS(...)	((const char *const[]){ __VA_ARGS__, NULL })
#define SUBS(...)	((const char *const[]){ __VA_ARGS__, NULL })
#define OPTIONS(...)	((const struct cmd_option[]){ __VA_ARGS__, { NULL } })

/* Options several commands share, with the same words. */
#define OPT_JSON	{ "--json", NULL, "JSON output (JSON.md)" }
#define OPT_DRY_RUN	{ "--dry-run", NULL, "print what would change, change nothing" }
#define OPT_FORCE	{ "--force", NULL, "go ahead although a GPU of those links is in use" }
#define OPT_DEV_FILTER \
	{ "--gpus", NULL, "only display, 3D and processing-accelerator functions" }, \
	{ "--driver", "NAME", "only devices bound to driver NAME" }, \
	{ "-d", "VENDOR[:DEVICE]", "only those IDs, in hex as lspci -d (10de, 10de:2330, :2330)" }

const struct cmd_entry cmd_table[] = {
	{ "list", cmd_list,
	  "PCI devices, marked when p2pmap tracks them",
	  FORMS("list [--all] [--gpus] [--driver NAME] [-d VENDOR[:DEVICE]] [--json]"),
	  NULL, NULL,
	  OPTIONS({ "--all", NULL, "bridges too" },
		  OPT_DEV_FILTER,
		  OPT_JSON) },
	{ "link", cmd_link,
	  "add, remove, show the links p2pmap maps",
	  FORMS("link add A B [--both] [--bars MASK]",
		"link del|delete A B [--both] [--dry-run] [--force]",
		"link auto [--numa N] [--driver D] [--dry-run] [-v]",
		"link show|list [--json]",
		"link flush [--dry-run] [--force]"),
	  SUBS("add", "del", "delete", "show", "list", "flush", "auto"),
	  "link auto links every admitted device to every other, both directions;\n"
	  "link show is status; link flush removes every link; del and flush\n"
	  "refuse while a GPU of a mapped link is in use.",
	  OPTIONS({ "--both", NULL, "the link B -> A too" },
		  { "--bars", "MASK", "the target's BARs to map, 0x1..0x3f (default 0x3)" },
		  OPT_DRY_RUN,
		  OPT_FORCE,
		  { "--numa", "N", "link auto: only devices on NUMA node N" },
		  { "--driver", "D", "link auto: only devices bound to driver D" },
		  { "-v", NULL, "link auto: say why each pair is linked or not" },
		  { "--verbose", NULL, "the same as -v" },
		  OPT_JSON) },
	{ "status", cmd_status,
	  "links, identity ranges, P2P matrix, verdict",
	  FORMS("status [--json]"), NULL, NULL,
	  OPTIONS(OPT_JSON) },
	{ "faults", cmd_faults,
	  "IOMMU fault counters; faults reset zeroes them",
	  FORMS("faults [--watch [SECONDS]] [--gpus] [--driver NAME] [-d VENDOR[:DEVICE]] [--json]",
		"faults reset [ADDR]"),
	  SUBS("reset"),
	  "faults reset without ADDR zeroes every device's counters.",
	  OPTIONS({ "--watch", "[SECONDS]", "print again every SECONDS (default 1) until interrupted" },
		  OPT_DEV_FILTER,
		  OPT_JSON) },
	{ "monitor", cmd_monitor,
	  "print the module's events",
	  FORMS("monitor [--json] [--count N] [--timeout SECONDS]"), NULL, NULL,
	  OPTIONS(OPT_JSON,
		  { "--count", "N", "stop after N events" },
		  { "--timeout", "SECONDS", "stop after SECONDS" }) },
	{ "check", cmd_check,
	  "exit 0 if every link is mapped, no pair faults and no verify cache is stale",
	  FORMS("check [--wait SECONDS] [--refresh-caches]"), NULL, NULL,
	  OPTIONS({ "--wait", "SECONDS", "first wait, up to SECONDS, while the module is not loaded or a link is pending" },
		  { "--refresh-caches", NULL, "run verify again for each stale cache" }) },
	{ "info", cmd_info,
	  "module version, fault sources, generation",
	  FORMS("info [--json]"), NULL, NULL,
	  OPTIONS(OPT_JSON) },
	{ "policy", cmd_policy,
	  "show or replace the admission policy",
	  FORMS("policy [show] [--json]",
		"policy set [--drivers LIST] [--vendors LIST] [--classes LIST] [--numa LIST] [--dry-run] [--force] [--json]"),
	  SUBS("show", "set"),
	  "policy set replaces the lists given (\"\" clears the vendor, class and\n"
	  "NUMA filters; for --drivers it admits no driver: --force); refused\n"
	  "while a GPU it would unlink is in use.",
	  OPTIONS({ "--drivers", "LIST", "admitted drivers, by name" },
		  { "--vendors", "LIST", "admitted vendors, 4 hex digits each" },
		  { "--classes", "LIST", "admitted PCI class code prefixes, 2, 4 or 6 hex digits" },
		  { "--numa", "LIST", "admitted NUMA nodes, in decimal" },
		  OPT_DRY_RUN,
		  OPT_FORCE,
		  OPT_JSON) },
	{ "config", cmd_config,
	  "save, show, check or apply the modprobe configuration",
	  FORMS("config save [--file PATH] [--dry-run] [--force]",
		"config show [--file PATH]",
		"config check [--file PATH | PATH]",
		"config apply [--file PATH] [--dry-run] [--force]"),
	  SUBS("save", "show", "check", "apply"),
	  "save writes the live policy and links for modprobe (keeps other lines;\n"
	  "refuses to drop every link); show prints the file; check reads it as the\n"
	  "module will at boot; apply sets its policy and adds its links now\n"
	  "(guarded as policy set).",
	  OPTIONS({ "--file", "PATH", "the file (default " CONFIG_DEFAULT_PATH ")" },
		  OPT_DRY_RUN,
		  OPT_FORCE) },
	{ "verify", cmd_verify,
	  "write and read over each CUDA peer direction, check data and faults",
	  FORMS("verify [--devices LIST] [--paths LIST] [--size BYTES] [--timeout SECONDS] [--vllm-cache] [--sglang-cache] [--bandwidth] [--json]",
		"verify --collective [--nccl PATH] [--unit NAME] [--devices LIST] [--timeout SECONDS] [--json]"),
	  NULL,
	  "LIST: CUDA ordinals, PCI addresses or GPU UUIDs (GPU-...), comma-separated;\n"
	  "--collective: an NCCL all-reduce (12K, 32M) over the GPUs and each pair of\n"
	  "them, with P2P and with NCCL_P2P_DISABLE=1; NCCL from --nccl, else\n"
	  "$P2PMAP_NCCL, else libnccl.so.2 on the library path, else the\n"
	  "nvidia-nccl wheel of unit NAME's Python (without --unit: $VIRTUAL_ENV's,\n"
	  "python3's on PATH, the system's);\n"
	  "exit 3: no CUDA driver, fewer than two CUDA devices, or (--collective) no\n"
	  "usable NCCL.",
	  OPTIONS({ "--devices", "LIST", "only these GPUs" },
		  { "--paths", "LIST", "only these paths (copy, sm, ipc, cumem)" },
		  { "--size", "BYTES", "bytes written and read per direction (default 4M; K, M, G)" },
		  { "--timeout", "SECONDS", "kill a copy not done within SECONDS (default 60)" },
		  { "--vllm-cache", NULL, "write vLLM's custom all-reduce P2P cache" },
		  { "--sglang-cache", NULL, "write SGLang's custom all-reduce P2P cache" },
		  { "--bandwidth", NULL, "then time the directions that work" },
		  { "--collective", NULL, "run NCCL's all-reduce with and without P2P instead" },
		  { "--nccl", "PATH", "the libnccl.so.2 to load (--collective)" },
		  { "--unit", "NAME", "else the NCCL wheel of systemd unit NAME's Python (--collective)" },
		  OPT_JSON) },
	{ "nccl-check", cmd_nccl_check,
	  "the transport NCCL chose per rank pair, against verify's verdicts",
	  FORMS("nccl-check LOG [--verify FILE] [--json]"), NULL,
	  "LOG: an NCCL_DEBUG=INFO log.",
	  OPTIONS({ "--verify", "FILE", "verify --json's output to hold the choices against" },
		  OPT_JSON) },
	{ "doctor", cmd_doctor,
	  "the host's P2P chain checked, then the first blocking cause",
	  FORMS("doctor [--unit NAME | --pid PID | --env-file FILE] [--dmesg LOG] [--gpus VENDOR[:DEVICE]] [--driver NAME] [--root DIR] [--json]"),
	  NULL,
	  "Checks IOMMU, SEV-SNP, GPUs, NVIDIA, p2pmap, links, fault lines and the\n"
	  "server's environment.",
	  OPTIONS({ "--unit", "NAME", "the server's environment from systemd unit NAME" },
		  { "--pid", "PID", "the server's environment from a running process" },
		  { "--env-file", "FILE", "the server's environment from KEY=VALUE lines" },
		  { "--dmesg", "LOG", "the kernel log, as dmesg prints it, from file LOG" },
		  { "--gpus", "VENDOR[:DEVICE]", "the server's GPUs (default NVIDIA)" },
		  { "--driver", "NAME", "the inference driver (default nvidia)" },
		  { "--root", "DIR", "read the host under DIR (DIR/sys, DIR/proc, DIR/etc)" },
		  OPT_JSON) },
	{ "proxmox-hook", cmd_proxmox_hook,
	  "a Proxmox VE guest hookscript: VM start refused while linked, CT start waits for check",
	  FORMS("proxmox-hook VMID PHASE [--wait SECONDS] [--root DIR]"),
	  NULL,
	  "As Proxmox runs a hookscript (proxmox/p2pmap-hookscript): in pre-start a\n"
	  "VM is refused (exit 1) while a p2pmap link touches one of its hostpci\n"
	  "devices; a container given /dev/nvidiaN first runs check --wait and\n"
	  "starts whatever it says.  Other phases, guests without GPUs: exit 0.",
	  OPTIONS({ "--wait", "SECONDS", "a container's pre-start: check --wait SECONDS (default 120)" },
		  { "--root", "DIR", "read DIR/etc/pve and DIR/sys instead (a copy of a host's files)" }) },
	{ "env", cmd_env,
	  "the NCCL/vLLM/SGLang environment verify's FILE allows",
	  FORMS("env --verify FILE [--devices LIST] [--format shell|systemd|nfd] [--output FILE] [--root DIR] [--json]"),
	  NULL,
	  "P2P only when every direction works, is mapped and has no fault.",
	  OPTIONS({ "--verify", "FILE", "verify --json's output" },
		  { "--devices", "LIST", "only these GPUs" },
		  { "--format", "shell|systemd|nfd", "export lines, a systemd drop-in, or NFD feature labels" },
		  { "--output", "FILE", "write FILE instead of standard output" },
		  { "--root", "DIR", "read the host under DIR" },
		  OPT_JSON) },
	{ "metrics", cmd_metrics,
	  "Prometheus text format (node_exporter textfile)",
	  FORMS("metrics [--output FILE] [--config FILE]"), NULL, NULL,
	  OPTIONS({ "--output", "FILE", "write FILE (atomically) instead of standard output" },
		  { "--config", "FILE", "the saved configuration to compare (default " CONFIG_DEFAULT_PATH ")" }) },
	{ "help", cmd_help,
	  "this text, or that command's",
	  FORMS("help [COMMAND | --table]"), NULL, NULL,
	  OPTIONS({ "--table", NULL, "every command's subcommands and options, one per line (for tests)" }) },
};

const size_t cmd_table_len = sizeof(cmd_table) / sizeof(cmd_table[0]);

#define HELP_JSON	"JSON output (as the command's own --json)"
#define HELP_HELP	"this text; \"p2pmap help COMMAND\" or \"p2pmap COMMAND --help\"\n" \
			"              for one command"

const struct cmd_option cmd_global_options[] = {
	{ "-j", NULL, HELP_JSON },
	{ "--json", NULL, HELP_JSON },
	{ "--version", NULL, "the CLI's version and the loaded module's" },
	{ "-h", NULL, HELP_HELP },
	{ "--help", NULL, HELP_HELP },
	{ "--no-check", NULL, NULL },
	{ NULL }
};

const struct cmd_entry *cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < cmd_table_len; i++)
		if (!strcmp(name, cmd_table[i].name))
			return &cmd_table[i];
	return NULL;
}

/*
 * @form's second word names subcommand @sub: "link del|delete A B" is
 * delete's, "policy [show] [--json]" show's.
 */
static bool form_of(const char *form, const char *sub)
{
	const char *w = strchr(form, ' '), *end;
	size_t n = strlen(sub);

	if (!w)
		return false;
	w += strspn(w, " [");
	end = w + strcspn(w, " ]");
	while (w < end) {
		size_t len = strcspn(w, "|");

		if (len > (size_t)(end - w))
			len = end - w;
		if (len == n && !strncmp(w, sub, n))
			return true;
		w += len + 1;
	}
	return false;
}

const char *cmd_usage(const char *name, const char *sub)
{
	static char buf[1024];
	const struct cmd_entry *c = cmd_find(name);
	const char *const *f;
	const char *sep = " ";
	size_t off;

	off = snprintf(buf, sizeof(buf), "usage: p2pmap");
	for (f = c ? c->forms : NULL; f && *f && off < sizeof(buf); f++) {
		if (sub && !form_of(*f, sub))
			continue;
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s", sep, *f);
		sep = " | ";
	}
	return buf;
}
