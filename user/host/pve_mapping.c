// SPDX-License-Identifier: GPL-2.0
/*
 * /etc/pve/mapping/pci.cfg (pve.h): a section per mapping, the bare name
 * on a line of its own, then indented "key value" lines (no colon) up to
 * the first empty line; "map" repeats, one per node and device
 * (pve-common's SectionConfig, pve-guest-common's PVE::Mapping::PCI):
 *
 *	gpus
 *		map node=pve1,path=0000:81:00.0,id=10de:2bb1
 *		map node=pve1,path=0000:91:00.0,id=10de:2bb1
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "pve.h"

bool pve_mapping_add(const char *root, const char *node, const char *name,
		     const char *key, struct pve_guest *g)
{
	char path[PATH_MAX], line[1024], section[128] = "", val[512];
	char via[48], lnode[64], *v;
	bool found = false;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/etc/pve/mapping/pci.cfg", root);
	f = fopen(path, "r");
	if (!f)
		return false;
	snprintf(via, sizeof(via), "%s mapping %s", key, name);
	while (fgets(line, sizeof(line), f)) {
		n = strcspn(line, "\r\n");
		line[n] = '\0';
		if (line[strspn(line, " \t")] == '#')
			continue;
		if (!line[0]) {			/* the section ends */
			section[0] = '\0';
			continue;
		}
		if (line[0] != ' ' && line[0] != '\t') {
			sscanf(line, "%127s", section);
			continue;
		}
		v = line + strspn(line, " \t");
		if (strcmp(section, name) || strncmp(v, "map", 3) ||
		    (v[3] != ' ' && v[3] != '\t'))
			continue;
		v += 3 + strspn(v + 3, " \t");
		snprintf(val, sizeof(val), "%s", v);	/* may hold spaces */
		if (pve_prop(val, "node", false, lnode, sizeof(lnode)) &&
		    !strcmp(lnode, node) &&
		    pve_prop(val, "path", false, line, sizeof(line))) {
			pve_add_pci(g, line, via);
			found = true;
		}
	}
	fclose(f);
	return found;
}
