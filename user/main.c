// SPDX-License-Identifier: GPL-2.0
/* p2pmap: identity IOMMU mappings of peer PCI BARs - command line tool. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "config.h"

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
	{ "list", cmd_list, "[--all] [--json]  PCI devices, marked when p2pmap tracks them" },
	{ "link", cmd_link, "add A B [--both] [--bars MASK] | del A B [--both]\n"
		  "           link auto [--numa N] [--driver D] [--dry-run]  link every admitted\n"
		  "           device to every other, both directions" },
	{ "status", cmd_status, "[--json]  links, identity ranges, P2P matrix, verdict" },
	{ "faults", cmd_faults, "[--watch [SECONDS]] [--json]  IOMMU fault counters\n"
		  "           faults reset [ADDR]  zero them (all devices without ADDR)" },
	{ "monitor", cmd_monitor, "[--json] [--count N] [--timeout SECONDS]  print events" },
	{ "check", cmd_check, "exit 0 if every link is mapped and no pair faults" },
	{ "info", cmd_info, "[--json]  module version, fault sources, generation" },
	{ "policy", cmd_policy, "[show] [--json]  the admission policy\n"
		  "           policy set [--drivers LIST] [--vendors LIST] [--classes LIST]\n"
		  "           [--numa LIST]  replace those lists (\"\" clears a filter)" },
	{ "config", cmd_config, "save [--file PATH]  write the live policy and links for modprobe\n"
		  "           config show [--file PATH]  print that file (default " CONFIG_DEFAULT_PATH ")" },
	{ "verify", cmd_verify, "[--devices 0,1,..] [--size BYTES] [--vllm-cache] [--json]\n"
		  "           copy over each CUDA peer direction, check data and fault counters;\n"
		  "           exit 3: no CUDA driver or fewer than two CUDA devices" },
	{ "metrics", cmd_metrics, "[--output FILE]  Prometheus text format (node_exporter textfile)" },
	{ "help", cmd_help, "this text" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: p2pmap [--no-check] <command> [<args>]\n\n");
	fprintf(f, "Commands:\n");
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name,
			subcommands[i].help);
	fprintf(f, "\nAddresses are PCI addresses [DDDD:]BB:DD.F; MASK selects BARs 0..5\n"
		   "(hex 0x.. or decimal, 1..0x3f, default all memory BARs).\n"
		   "Policy LISTs are comma-separated: drivers by name, vendors as 4 hex digits,\n"
		   "classes as 2, 4 or 6 hex digits (a class code prefix), NUMA nodes in decimal.\n"
		   "Counts shown as >=N are lower bounds (VT-d rate-limits its fault log).\n"
		   "--json output is described in JSON.md.\n\n"
		   "Exit status: 0 ok, 1 runtime or kernel error or failed check, 2 usage.\n\n"
		   "Options:\n"
		   "  --version   print the version\n"
		   "  --no-check  send addresses and masks to the kernel unchecked (for tests)\n");
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	size_t i;

	argc--;
	argv++;
	while (argc && argv[0][0] == '-') {
		if (!strcmp(argv[0], "--no-check")) {
			opt_no_check = true;
		} else if (!strcmp(argv[0], "--version")) {
			printf("p2pmap %s\n", P2PMAP_VERSION);
			return EXIT_OK;
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

	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[0], subcommands[i].name))
			return subcommands[i].fn(argc, argv);

	fprintf(stderr, "p2pmap: unknown command \"%s\" (try \"p2pmap help\")\n",
		argv[0]);
	return EXIT_USAGE;
}
