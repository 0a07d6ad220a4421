/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is this a container?  Asked as systemd-detect-virt --container asks
 * (/run/systemd/container, container= in PID 1's environment, docker's and
 * podman's marker files), plus a user namespace that maps less than every
 * ID (an unprivileged LXC container, "unshare -U").  p2pmap's module, its
 * DKMS build and its boot files live on the host; a container only reads.
 */
#ifndef P2PMAP_CONTAINER_H
#define P2PMAP_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True in a container; @what then names it ("lxc", "docker", "a user
 * namespace").  Read under @root ("" for this machine).
 */
bool in_container(const char *root, char *what, size_t len);

#endif /* P2PMAP_CONTAINER_H */
