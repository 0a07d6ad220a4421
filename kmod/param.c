// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters that never stop the module from loading.  modprobe
 * ignores a failed soft dependency, so a load refused for a typo would let
 * the GPU driver load with nothing mapped and one dmesg line to say why.
 * Instead the bad part is skipped and logged here, the rest is used, and
 * INFO_GET reports the problems ("p2pmap status" says PROBLEM).  What a
 * skipped part means is decided by its user, always on the safe side: a
 * malformed policy admits no device, a malformed reserve= reserves.
 *
 * The kernel's own charp and bool refuse the load on a parameter given
 * without a value, a charp longer than 1024 bytes (links= of an 8-GPU mesh
 * is longer) and a bool that is not one: the ops below take all three.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "p2pmap.h"

u32 p2pmap_param_errors;
char p2pmap_param_error[P2PMAP_PARAM_PROBLEM_LEN];	/* the first one */

/* Invalid for every user of a string parameter: it gets skipped. */
static const char p2pmap_param_lost[] = "(out of memory)";

void p2pmap_param_problem(const char *fmt, ...)
{
	char msg[P2PMAP_PARAM_PROBLEM_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_err("%s\n", msg);
	if (!p2pmap_param_errors++)
		strscpy(p2pmap_param_error, msg, sizeof(p2pmap_param_error));
}

static bool p2pmap_param_str_owned(const struct p2pmap_param_str *ps)
{
	return *ps->val != ps->dflt && *ps->val != p2pmap_param_lost;
}

/* Any length, no value meaning "".  A list parameter given again appends. */
static int p2pmap_param_str_set(const char *val, const struct kernel_param *kp)
{
	const struct p2pmap_param_str *ps = kp->arg;
	const char *new;

	if (!val)
		val = "";
	if (ps->list && p2pmap_param_str_owned(ps) && **ps->val && *val)
		new = kasprintf(GFP_KERNEL, "%s,%s", *ps->val, val);
	else
		new = kstrdup(val, GFP_KERNEL);
	if (!new) {
		p2pmap_param_problem("%s: out of memory for its value", kp->name);
		new = p2pmap_param_lost;
	}
	if (p2pmap_param_str_owned(ps))
		kfree(*ps->val);
	*ps->val = new;
	return 0;
}

static int p2pmap_param_str_get(char *buffer, const struct kernel_param *kp)
{
	const struct p2pmap_param_str *ps = kp->arg;

	return scnprintf(buffer, PAGE_SIZE, "%s\n", *ps->val);
}

static void p2pmap_param_str_free(void *arg)
{
	struct p2pmap_param_str *ps = arg;

	if (p2pmap_param_str_owned(ps))
		kfree(*ps->val);
	*ps->val = ps->dflt;
}

const struct kernel_param_ops p2pmap_param_ops_str = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = p2pmap_param_str_set,
	.get = p2pmap_param_str_get,
	.free = p2pmap_param_str_free,
};

/*
 * At load, a value that is not a boolean keeps the default, said so.  The
 * grammar is p2pmap's (param_grammar.c), the same on every kernel.
 */
static int p2pmap_param_bool_set(const char *val, const struct kernel_param *kp)
{
	char problem[P2PMAP_PARAM_PROBLEM_LEN];

	if (!p2pmap_parse_bool_param(kp->name, val, kp->arg, problem,
				     sizeof(problem)))
		return 0;
	if (THIS_MODULE->state == MODULE_STATE_LIVE)
		return -EINVAL;		/* a write to /sys/module: refused */
	p2pmap_param_problem("%s", problem);
	return 0;
}

const struct kernel_param_ops p2pmap_param_ops_bool = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = p2pmap_param_bool_set,
	.get = param_get_bool,
};
