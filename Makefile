# p2pmap top level.
#   make            build the module for the running kernel and the CLI
#   make demo       an emulated multi-GPU host in QEMU, before and after p2pmap
#   make check      every test (unit, static, VM suites on each kernel/IOMMU)
#   make install    CLI + module (through DKMS); make uninstall undoes it
# demo and check install the Debian packages they need (tests/deps.sh).

VERSION := $(shell cat VERSION)
KERNELRELEASE ?= $(shell uname -r)
PREFIX ?= /usr
DKMS_SRC := /usr/src/p2pmap-$(VERSION)

all: user module

user:
	$(MAKE) -C user

module:
	$(MAKE) -C kmod KERNELRELEASE=$(KERNELRELEASE)

deps:
	tests/deps.sh

check: deps
	tests/run.sh

demo: deps
	tests/demo.sh

install: user
	install -D -m 0755 user/p2pmap $(DESTDIR)$(PREFIX)/sbin/p2pmap
	rm -rf $(DESTDIR)$(DKMS_SRC)
	mkdir -p $(DESTDIR)$(DKMS_SRC)
	cp -r kmod include VERSION $(DESTDIR)$(DKMS_SRC)/
	sed 's/@VERSION@/$(VERSION)/' dkms.conf >$(DESTDIR)$(DKMS_SRC)/dkms.conf
	[ -n "$(DESTDIR)" ] || dkms install -m p2pmap -v $(VERSION) \
		-k $(KERNELRELEASE)

uninstall:
	-modprobe -r p2pmap
	-dkms remove -m p2pmap -v $(VERSION) --all
	rm -rf $(DESTDIR)$(DKMS_SRC) $(DESTDIR)$(PREFIX)/sbin/p2pmap

clean:
	$(MAKE) -C user clean
	-$(MAKE) -C kmod clean
	rm -rf build

.PHONY: all user module deps check demo install uninstall clean
