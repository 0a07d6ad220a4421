// SPDX-License-Identifier: GPL-2.0
/* p2pmap: identity IOMMU mappings of peer PCI BARs - command line tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "module_hint.h"
#include "nl.h"

#ifndef P2PMAP_VERSION
#define P2PMAP_VERSION "unknown"
#endif

bool opt_no_check;

static int cmd_help(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} subcommands[] = {
	{ "list", cmd_list, "[--all] [--gpus] [--driver NAME] [-d VENDOR[:DEVICE]] [--json]  PCI devices, marked when p2pmap tracks them" },
	{ "link", cmd_link, "add A B [--both] [--bars MASK] | del|delete A B [--both] [--dry-run] [--force]\n"
		  "           link auto [--numa N] [--driver D] [--dry-run] [-v]  link every admitted\n"
		  "           device to every other, both directions\n"
		  "           link show|list [--json]  the same as status\n"
		  "           link flush [--dry-run] [--force]  remove every link\n"
		  "           (del and flush refuse while a GPU of a mapped link is in use)" },
	{ "status", cmd_status, "[--json]  links, identity ranges, P2P matrix, verdict" },
	{ "faults", cmd_faults, "[--watch [SECONDS]] [--gpus] [--driver NAME] [-d VENDOR[:DEVICE]] [--json]  IOMMU fault counters\n"
		  "           faults reset [ADDR]  zero them (all devices without ADDR)" },
	{ "monitor", cmd_monitor, "[--json] [--count N] [--timeout SECONDS]  print events" },
	{ "check", cmd_check, "[--wait SECONDS] [--refresh-caches]  exit 0 if every link is mapped, no pair faults and no verify cache is stale" },
	{ "info", cmd_info, "[--json]  module version, fault sources, generation" },
	{ "policy", cmd_policy, "[show] [--json]  the admission policy\n"
		  "           policy set [--drivers LIST] [--vendors LIST] [--classes LIST]\n"
		  "           [--numa LIST] [--dry-run] [--force]  replace those lists (\"\" clears\n"
		  "           the vendor, class and NUMA filters; for --drivers it admits no\n"
		  "           driver: --force); refused while a GPU it would unlink is in use" },
	{ "config", cmd_config, "save [--file PATH] [--dry-run] [--force]  write the live policy and\n"
		  "           links for modprobe (keeps other lines; refuses to drop every link)\n"
		  "           config show [--file PATH]  print that file (default " CONFIG_DEFAULT_PATH ")\n"
		  "           config check [--file PATH | PATH]  read it as the module will at boot\n"
		  "           config apply [--file PATH] [--dry-run] [--force]  set its policy and\n"
		  "           add its links in the module now (guarded as policy set)" },
	{ "verify", cmd_verify, "[--devices LIST] [--paths LIST] [--size BYTES] [--timeout SECONDS]\n"
		  "           [--vllm-cache] [--sglang-cache] [--bandwidth] [--json]  write and\n"
		  "           read over each CUDA peer direction, check data and fault\n"
		  "           counters (--bandwidth: then time those that work); LIST: CUDA\n"
		  "           ordinals, PCI addresses or GPU UUIDs (GPU-...), comma-separated;\n"
		  "           exit 3: no CUDA driver or fewer than two CUDA devices" },
	{ "nccl-check", cmd_nccl_check, "LOG [--verify FILE] [--json]  the transport NCCL chose per\n"
		  "           rank pair (NCCL_DEBUG=INFO log), against p2pmap verify's verdicts" },
	{ "doctor", cmd_doctor, "[--unit NAME|--pid PID|--env-file FILE] [--dmesg FILE]\n"
		  "           [--gpus VENDOR[:DEVICE]] [--driver NAME] [--root DIR] [--json]\n"
		  "           the host's P2P chain checked (IOMMU,\n"
		  "           SEV-SNP, GPUs, NVIDIA, p2pmap, links, fault lines, the server's\n"
		  "           environment), then the first blocking cause" },
	{ "env", cmd_env, "--verify FILE [--devices LIST] [--format shell|systemd] [--root DIR]\n"
		  "           [--json]  the NCCL/vLLM/SGLang environment verify's FILE allows;\n"
		  "           P2P only when every direction works, is mapped, has no fault" },
	{ "metrics", cmd_metrics, "[--output FILE] [--config FILE]  Prometheus text format (node_exporter textfile)" },
	{ "help", cmd_help, "[COMMAND]  this text, or that command's" },
};

#define NR_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: p2pmap [-j|--json] <command> [<args>]\n\n");
	fprintf(f, "Commands:\n");
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name,
			subcommands[i].help);
	fprintf(f, "\nAddresses are PCI addresses [DDDD:]BB:DD.F; MASK selects BARs 0..5\n"
		   "(hex 0x.. or decimal, 1..0x3f, default 0x3: BAR0 and BAR1, what NVIDIA maps).\n"
		   "Policy LISTs are comma-separated: drivers by name, vendors as 4 hex digits,\n"
		   "classes as 2, 4 or 6 hex digits (a class code prefix), NUMA nodes in decimal.\n"
		   "Counts shown as >=N are lower bounds (VT-d rate-limits its fault log).\n"
		   "--json output is described in JSON.md.\n\n"
		   "Every option takes its value as --opt VALUE or --opt=VALUE.\n\n"
		   EXIT_TABLE "\n"
		   "Options:\n"
		   "  -j, --json  JSON output (as the command's own --json)\n"
		   "  --version   the CLI's version and the loaded module's\n"
		   "  -h, --help  this text; \"p2pmap help COMMAND\" or \"p2pmap COMMAND --help\"\n"
		   "              for one command\n");
}

static int find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_SUBCOMMANDS; i++)
		if (!strcmp(name, subcommands[i].name))
			return (int)i;
	return -1;
}

static void command_usage(FILE *f, int i)
{
	fprintf(f, "Usage: p2pmap %s %s\n", subcommands[i].name,
		subcommands[i].help);
}

static int cmd_help(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		usage(stdout);
		return EXIT_OK;
	}
	i = find_command(argv[1]);
	if (argc > 2 || i < 0) {
		fprintf(stderr, "p2pmap: help: no command \"%s\" (try \"p2pmap help\")\n",
			argv[argc > 2 ? 2 : 1]);
		return EXIT_USAGE;
	}
	command_usage(stdout, i);
	return EXIT_OK;
}

/*
 * One grammar for every command: "--opt=value" is "--opt" "value", a
 * leading -j/--json goes to the command, and -h/--help anywhere in its
 * arguments prints its usage.  Returns a new argv (argc in *@argc), or
 * NULL when out of memory.
 */
static char **normalise(int *argc, char **argv, bool json)
{
	char **out = calloc(2 * (size_t)*argc + 2, sizeof(*out));
	int i, n = 0;
	char *eq;

	if (!out)
		return NULL;
	for (i = 0; i < *argc; i++) {
		eq = i && !strncmp(argv[i], "--", 2) ? strchr(argv[i], '=') : NULL;
		if (eq) {
			*eq = '\0';
			out[n++] = argv[i];
			out[n++] = eq + 1;
		} else {
			out[n++] = argv[i];
		}
	}
	if (json)
		out[n++] = "--json";
	out[n] = NULL;
	*argc = n;
	return out;
}

int main(int argc, char **argv)
{
	bool json = false;
	char **args;
	int i, j;

	pnl_not_loaded_hint = module_hint;
	argc--;
	argv++;
	while (argc && argv[0][0] == '-') {
		if (!strcmp(argv[0], "-j") || !strcmp(argv[0], "--json")) {
			json = true;
		} else if (!strcmp(argv[0], "--no-check")) {
			opt_no_check = true;
		} else if (!strcmp(argv[0], "--version")) {
			return cmd_version(P2PMAP_VERSION);
		} else if (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
			usage(stdout);
			return EXIT_OK;
		} else {
			fprintf(stderr, "p2pmap: unknown option \"%s\" (try \"p2pmap help\")\n",
				argv[0]);
			return EXIT_USAGE;
		}
		argc--;
		argv++;
	}
	if (!argc) {
		usage(stdout);
		return EXIT_OK;
	}

	i = find_command(argv[0]);
	if (i < 0) {
		fprintf(stderr, "p2pmap: unknown command \"%s\" (try \"p2pmap help\")\n",
			argv[0]);
		return EXIT_USAGE;
	}
	for (j = 1; j < argc; j++) {
		if (!strcmp(argv[j], "-h") || !strcmp(argv[j], "--help")) {
			command_usage(stdout, i);
			return EXIT_OK;
		}
	}
	args = normalise(&argc, argv, json);
	if (!args) {
		fprintf(stderr, "p2pmap: out of memory\n");
		return EXIT_FAILED;
	}
	j = subcommands[i].fn(argc, args);
	free(args);
	return j;
}
