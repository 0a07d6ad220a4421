// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap doctor [--unit NAME | --pid PID | --env-file FILE] [--dmesg FILE]
 *               [--gpus VENDOR[:DEVICE]] [--driver NAME] [--root DIR] [--json]
 * (--gpus, --driver: which devices are the server's GPUs, and its driver;
 * NVIDIA display and 3D controllers and nvidia by default)
 * The host's whole P2P chain, each check ok / warn / fail / skip with its
 * evidence and the fix, then the first blocking cause (doctor/doctor.h).
 * Changes nothing; works without root and without the module.
 * Exit 0: nothing failed; 1: something failed; 2: usage.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "doctor.h"
#include "json.h"

#define DOCTOR_USAGE	cmd_usage("doctor", NULL)

static void print_text(const struct doctor_report *r)
{
	const struct doctor_check *b = doctor_first_blocking(r);
	size_t i;

	for (i = 0; i < r->n; i++) {
		printf("%-5s %s: %s\n", doctor_level_name(r->c[i].level),
		       r->c[i].name, r->c[i].evidence);
		if (r->c[i].fix[0] && r->c[i].level != DOCTOR_OK)
			printf("      fix: %s\n", r->c[i].fix);
	}
	if (b)
		printf("first blocking cause: %s: %s%s%s\n", b->name,
		       b->evidence, b->fix[0] ? "; fix: " : "", b->fix);
	else
		printf("no blocking cause found\n");
}

/* On a Proxmox VE node: whose each GPU is (JSON.md: doctor). */
static void print_owners(struct json *j, const struct doctor_report *r)
{
	const struct doctor_owner *o;
	size_t i;

	json_key(j, "owners");
	json_arr_begin(j);
	for (i = 0; i < r->nowners; i++) {
		o = &r->owners[i];
		json_obj_begin(j);
		json_key(j, "address");
		json_str(j, o->addr);
		json_key(j, "owner");
		json_enum(j, o->kind);
		json_key_u64_or_null(j, "id", strcmp(o->kind, "host"), o->id);
		json_key(j, "name");
		json_str_or_null(j, o->name);
		json_key(j, "sev");
		json_str_or_null(j, o->sev);
		json_key(j, "via");
		json_str_or_null(j, o->via);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void print_json(const struct doctor_report *r)
{
	const struct doctor_check *b = doctor_first_blocking(r);
	struct json j;
	size_t i;

	json_init(&j, stdout);
	json_doc_begin(&j);
	json_key(&j, "checks");
	json_arr_begin(&j);
	for (i = 0; i < r->n; i++) {
		json_obj_begin(&j);
		json_key(&j, "name");
		json_str(&j, r->c[i].name);
		json_key(&j, "level");
		json_enum(&j, doctor_level_name(r->c[i].level));
		json_key(&j, "blocking");
		json_bool(&j, r->c[i].blocking);
		json_key(&j, "evidence");
		json_str(&j, r->c[i].evidence);
		json_key(&j, "fix");
		json_str_or_null(&j, r->c[i].fix);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "first_blocking");
	json_str(&j, b ? b->name : NULL);
	print_owners(&j, r);
	json_obj_end(&j);
	putchar('\n');
}

int cmd_doctor(int argc, char **argv)
{
	static struct doctor_report r;
	struct doctor_env_source env = { 0 };
	struct doctor_gpus gpus = { .vendor = 0x10de, .driver = "nvidia" };
	unsigned int vendor, device;
	char junk;
	const char *root = "";
	struct cmd_getopt g;
	bool json = false;
	int i, sources = 0;
	size_t k;

	cmd_getopt_init(&g, "doctor", NULL, argc, argv);
	while ((i = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--json")) {
			json = true;
		} else if (cmd_opt_is(&g, "--root")) {
			root = g.arg;
		} else if (cmd_opt_is(&g, "--unit")) {
			env.unit = g.arg;
			sources++;
		} else if (cmd_opt_is(&g, "--pid")) {
			env.pid = g.arg;
			sources++;
		} else if (cmd_opt_is(&g, "--gpus")) {
			device = 0;
			if ((sscanf(g.arg, "%4x:%4x%c", &vendor, &device,
				    &junk) != 2 &&
			     sscanf(g.arg, "%4x%c", &vendor, &junk) != 1) ||
			    !vendor) {
				fprintf(stderr, "p2pmap: doctor: --gpus takes VENDOR[:DEVICE] in hex (lspci -d), not \"%s\"\n",
					g.arg);
				return EXIT_USAGE;
			}
			gpus.vendor = vendor;
			gpus.device = device;
			gpus.any_class = true;
		} else if (cmd_opt_is(&g, "--driver")) {
			if (!g.arg[0]) {
				fprintf(stderr, "p2pmap: doctor: --driver needs a name; %s\n",
					DOCTOR_USAGE);
				return EXIT_USAGE;
			}
			gpus.driver = g.arg;
		} else if (cmd_opt_is(&g, "--dmesg")) {
			env.dmesg = g.arg;
		} else if (cmd_opt_is(&g, "--env-file")) {
			env.file = g.arg;
			sources++;
		} else {
			return cmd_getopt_refuse(&g);
		}
	}
	if (i < 0)
		return EXIT_USAGE;
	if (g.npos)
		return cmd_getopt_extra(&g, g.pos[0]);
	if (sources > 1) {
		fprintf(stderr, "p2pmap: doctor: one of --unit, --pid, --env-file; %s\n",
			DOCTOR_USAGE);
		return EXIT_USAGE;
	}
	if (env.unit && (strchr(env.unit, '/') || !env.unit[0])) {
		fprintf(stderr, "p2pmap: doctor: --unit takes a unit name (vllm.service), not a path\n");
		return EXIT_USAGE;
	}
	if (env.pid && strspn(env.pid, "0123456789") != strlen(env.pid)) {
		fprintf(stderr, "p2pmap: doctor: --pid takes a process id\n");
		return EXIT_USAGE;
	}
	if (!strcmp(root, "/"))
		root = "";
	doctor_run(root, &env, &gpus, &r);
	if (json)
		print_json(&r);
	else
		print_text(&r);
	for (k = 0; k < r.n; k++)
		if (r.c[k].level == DOCTOR_FAIL)
			return EXIT_FAILED;
	return EXIT_OK;
}
