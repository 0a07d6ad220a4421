// SPDX-License-Identifier: GPL-2.0
/*
 * vfio_claim GROUP DEVICE: claim an IOMMU group through the legacy VFIO
 * container API, as QEMU does when a VM starts (SET_CONTAINER, SET_IOMMU,
 * GET_DEVICE_FD), print "claimed", hold it until standard input closes or
 * a line is read, then release it and print "released".  Test tool.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/vfio.h>

static int fail(const char *what)
{
	fprintf(stderr, "vfio_claim: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct vfio_group_status status = { .argsz = sizeof(status) };
	char path[64], line[16];
	int container, group, device;

	if (argc != 3) {
		fprintf(stderr, "usage: vfio_claim GROUP DEVICE\n");
		return 2;
	}
	container = open("/dev/vfio/vfio", O_RDWR);
	if (container < 0)
		return fail("/dev/vfio/vfio");
	if (ioctl(container, VFIO_GET_API_VERSION) != VFIO_API_VERSION)
		return fail("API version");
	snprintf(path, sizeof(path), "/dev/vfio/%s", argv[1]);
	group = open(path, O_RDWR);
	if (group < 0)
		return fail(path);
	if (ioctl(group, VFIO_GROUP_GET_STATUS, &status) ||
	    !(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		errno = errno ? errno : EBUSY;
		return fail("group not viable");
	}
	if (ioctl(group, VFIO_GROUP_SET_CONTAINER, &container))
		return fail("SET_CONTAINER");
	if (ioctl(container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU))
		return fail("SET_IOMMU");
	device = ioctl(group, VFIO_GROUP_GET_DEVICE_FD, argv[2]);
	if (device < 0)
		return fail("GET_DEVICE_FD");
	printf("claimed\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = '\0';
	close(device);
	ioctl(group, VFIO_GROUP_UNSET_CONTAINER);
	close(group);
	close(container);
	printf("released\n");
	return 0;
}
