// SPDX-License-Identifier: GPL-2.0
/* p2pmap: identity IOMMU mappings of peer PCI BARs - command line tool. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

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
	{ "list", cmd_list, "[--all]  PCI devices, marked when p2pmap tracks them" },
	{ "link", cmd_link, "add A B [--both] [--bars MASK] | del A B [--both]" },
	{ "status", cmd_status, "configured links and their identity ranges" },
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
		   "(hex 0x.. or decimal, 1..0x3f, default all memory BARs).\n\n"
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
