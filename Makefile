# p2pmap top level.
#   make            build the module for the running kernel and the CLI
#   make demo       an emulated multi-GPU host in QEMU, before and after p2pmap
#   make check      every test (unit, static, VM suites on each kernel/IOMMU)
#   make check-host the host tests alone (minutes), counted as make check
#   make check-gpu  the real CUDA driver beside the stand-in (an NVIDIA GPU)
#   make check-vm KVER=6.12 IOMMU=amd SUITES=early,holds [TOPO=gpus4+pxb]
#                   one boot of the suites named (tests/check-vm.sh)
#   make install    CLI, man pages, bash completion, and the module through
#                   DKMS for every installed kernel with headers
#   make uninstall  undoes it (leaves /etc/modprobe.d/p2pmap.conf alone,
#                   removes 00-p2pmap-softdep.conf beside it; refused while a GPU of a mapped link is in use, unless
#                   FORCE=1; DRY_RUN=1 says what it would do)
#   make dkms-src DKMS_SRC=DIR   the DKMS source tree alone, in DIR
#   make deb        Debian packages p2pmap-dkms and p2pmap in build/deb
#                   (debhelper, dh-dkms; built in a copy of the tree)
# check installs the Debian packages it needs (tests/deps.sh); demo only its
# own (tests/deps.sh demo): its kernel is unpacked under build/kroot, not
# installed (tests/kernel-unpack.sh).

VERSION := $(shell cat VERSION)
KERNELRELEASE ?= $(shell uname -r)
PREFIX ?= /usr
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= /lib/systemd/system
UNITS := $(wildcard systemd/*.service systemd/*.timer)
# Prometheus alerting rules and a Grafana dashboard (monitoring/).
DATADIR ?= $(PREFIX)/share/p2pmap
DKMS_SRC ?= /usr/src/p2pmap-$(VERSION)
DKMS_DEST := $(DESTDIR)$(DKMS_SRC)
MODPROBE_CONF ?= /etc/modprobe.d/p2pmap.conf

# What DKMS needs to build the module: sources only, never build outputs
# left in kmod/ by "make module".
DKMS_FILES := VERSION include/uapi/linux/p2pmap.h kmod/Kbuild kmod/Makefile \
	$(filter-out %.mod.c,$(wildcard kmod/*.c)) \
	$(filter-out kmod/compat_probed.h,$(wildcard kmod/*.h)) \
	$(wildcard kmod/compat/*.h kmod/compat/*.sh kmod/compat/probes/*.c) \
	$(filter-out %.mod.c,$(wildcard kmod/shared/*.c)) \
	$(wildcard kmod/shared/*.h)
MANPAGES := $(wildcard man/*.[1-8])
INSTALLED_MANPAGES = $(foreach m,$(MANPAGES) man/p2pmap.8 man/p2pmap.4,\
	$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))

all: user module

user:
	$(MAKE) -C user

module:
	$(MAKE) -C kmod KERNELRELEASE=$(KERNELRELEASE)

deps:
	tests/deps.sh

check: deps
	tests/run.sh

check-host: deps
	tests/run.sh host

# On a machine with an NVIDIA GPU: the real driver's answers beside the
# stand-in's (tests/gpu/run.sh); without one it says so and passes.
check-gpu: user
	tests/gpu/run.sh

check-vm: deps
	tests/check-vm.sh

demo:
	tests/deps.sh demo
	tests/demo.sh

bench: deps
	tests/bench.sh

dkms-src:
	rm -rf $(DKMS_DEST)
	mkdir -p $(DKMS_DEST)
	cp --parents -p $(DKMS_FILES) $(DKMS_DEST)/
	sed 's/^PACKAGE_VERSION="@VERSION@"/PACKAGE_VERSION="$(VERSION)"/' dkms.conf >$(DKMS_DEST)/dkms.conf

# The module: DKMS source tree in /usr/src, then built and installed for
# each kernel that has headers (tests/kernels.sh); DKMS itself (AUTOINSTALL)
# builds it for kernels installed later.  A previous registration of this
# version is removed first: its source may differ.  With DESTDIR (packaging)
# only the files are staged.
install: user dkms-src
	install -D -m 0755 user/p2pmap $(DESTDIR)$(PREFIX)/sbin/p2pmap
	@set -e; for m in $(MANPAGES); do \
		s=$${m##*.}; \
		echo "install $$m -> $(DESTDIR)$(MANDIR)/man$$s/"; \
		install -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; \
	done
	@set -e; if [ -f completion/p2pmap.bash ]; then \
		echo "install completion/p2pmap.bash"; \
		install -D -m 0644 completion/p2pmap.bash \
			$(DESTDIR)$(COMPLETIONDIR)/p2pmap; \
	fi
	@set -e; for u in $(UNITS); do \
		echo "install $$u -> $(DESTDIR)$(SYSTEMDUNITDIR)/"; \
		install -D -m 0644 $$u $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}; \
	done
	install -D -m 0644 monitoring/p2pmap.rules.yml \
		$(DESTDIR)$(DATADIR)/prometheus/p2pmap.rules.yml
	install -D -m 0644 monitoring/grafana-p2pmap.json \
		$(DESTDIR)$(DATADIR)/grafana/p2pmap.json
	@# Proxmox VE's guest hookscript: the admin links it into a snippets
	@# directory (Documentation/proxmox.md); it names the CLI installed.
	mkdir -p $(DESTDIR)$(DATADIR)/proxmox
	sed 's|@SBINDIR@|$(PREFIX)/sbin|' proxmox/p2pmap-hookscript \
		>$(DESTDIR)$(DATADIR)/proxmox/p2pmap-hookscript
	chmod 0755 $(DESTDIR)$(DATADIR)/proxmox/p2pmap-hookscript
	@set -e; [ -z "$(DESTDIR)" ] || exit 0; \
	if dkms status -m p2pmap -v $(VERSION) | grep -q .; then \
		dkms remove -m p2pmap -v $(VERSION) --all; \
	fi; \
	dkms add -m p2pmap -v $(VERSION); \
	kernels=$$(tests/kernels.sh); rel=$$(uname -r); \
	case $$rel in \
	*-pve) hdr="proxmox-headers-$$rel (and proxmox-default-headers," ;; \
	*) hdr="linux-headers-$$rel (and linux-headers-$${rel##*-}," ;; \
	esac; \
	[ -e /lib/modules/$$rel/build/Makefile ] || echo "install: no headers" \
		"for the running kernel $$rel: DKMS builds p2pmap for it once" \
		"they are there: apt install $$hdr for the kernels to come)"; \
	for k in $$kernels; do \
		dkms build -m p2pmap -v $(VERSION) -k $$k; \
		dkms install -m p2pmap -v $(VERSION) -k $$k; \
	done
	@# The boot configuration, read as the module will read it.
	@[ -n "$(DESTDIR)" ] || [ ! -f $(MODPROBE_CONF) ] || \
		user/p2pmap config check $(MODPROBE_CONF) || \
		echo "install: $(MODPROBE_CONF): the module will skip what is" \
			"named above at its next load, or kmod will not load it" \
			"before the GPU driver: fix it, or run p2pmap config save"

# Unloading the module unmaps every link: first "p2pmap link flush", which
# lists them and refuses while a process holds a GPU of a mapped link (its
# P2P would fault at once).  FORCE=1 goes on anyway; DRY_RUN=1 prints what
# would be unmapped and removed and changes nothing.
# (UNINSTALL_CLI and P2PMAP_LOADED: for tests/install/run.sh.)
UNINSTALL_CLI ?= $(firstword $(wildcard $(PREFIX)/sbin/p2pmap user/p2pmap))
P2PMAP_LOADED ?= /sys/module/p2pmap
uninstall:
	@set -e; [ -z "$(DESTDIR)" ] || exit 0; \
	if [ -d $(P2PMAP_LOADED) ]; then \
		if [ -z "$(UNINSTALL_CLI)" ] && [ -z "$(FORCE)" ]; then \
			echo "uninstall: refused: p2pmap is loaded and no p2pmap CLI is here to check its links (make user, or FORCE=1)"; \
			exit 1; \
		fi; \
		if [ -n "$(UNINSTALL_CLI)" ] && ! $(UNINSTALL_CLI) link flush \
			$(if $(DRY_RUN),--dry-run) $(if $(FORCE),--force); then \
			echo "uninstall: refused, nothing removed: see above (FORCE=1 unloads anyway)"; \
			exit 1; \
		fi; \
		$(if $(DRY_RUN),echo "would run:") modprobe -r p2pmap; \
	fi; \
	if dkms status -m p2pmap -v $(VERSION) | grep -q .; then \
		$(if $(DRY_RUN),echo "would run:") dkms remove -m p2pmap -v $(VERSION) --all; \
	fi
	$(if $(DRY_RUN),@echo "would run:") rm -rf $(DKMS_DEST)
	$(if $(DRY_RUN),@echo "would run:") rm -f $(DESTDIR)$(PREFIX)/sbin/p2pmap $(INSTALLED_MANPAGES) \
		$(DESTDIR)$(COMPLETIONDIR)/p2pmap \
		$(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(notdir $(UNITS)))
	$(if $(DRY_RUN),@echo "would run:") rm -rf $(DESTDIR)$(DATADIR)
	@# Without p2pmap its softdep file only hides the GPU driver's other
	@# softdep lines from kmod (the first one read wins): it goes.
	$(if $(DRY_RUN),@echo "would run:") rm -f $(DESTDIR)/etc/modprobe.d/00-p2pmap-softdep.conf
	@if [ -e $(DESTDIR)/etc/modprobe.d/p2pmap.conf ]; then \
		echo "uninstall: left /etc/modprobe.d/p2pmap.conf in place" \
			"(your links= configuration; p2pmap config save writes" \
			"the softdep file again)"; \
	fi

# The packages, from a copy of the sources (no build outputs, nothing
# written next to the tree): build/deb/*.deb.
DEB_DIR := build/deb
deb:
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/p2pmap-$(VERSION)
	tar --exclude=./build --exclude-vcs --exclude='*.o' --exclude='*.ko' \
		--exclude=./user/obj --exclude=./user/p2pmap -cf - . | \
		tar -C $(DEB_DIR)/p2pmap-$(VERSION) -xf -
	cd $(DEB_DIR)/p2pmap-$(VERSION) && dpkg-buildpackage -b -us -uc
	@ls $(DEB_DIR)/*.deb

clean:
	$(MAKE) -C user clean
	-$(MAKE) -C kmod clean
	@# tests/newer-kernel.sh mounts /proc in its chroot while it runs
	-if mountpoint -q build/trixie/proc; then umount -l build/trixie/proc; fi
	rm -rf build

.PHONY: all user module deps check check-host check-gpu check-vm demo bench dkms-src install uninstall deb clean
