// SPDX-License-Identifier: MIT
/* KVM binary stats: see Documentation/virt/kvm/api.rst, KVM_GET_STATS_FD. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/kvm.h>

#include "kvm_stats.h"

static bool wanted(const char *name)
{
	return !strcmp(name, "exits") || !strcmp(name, "io_exits") ||
	       !strncmp(name, "pvsmm_", 6);
}

static bool pread_all(int fd, void *buf, size_t len, off_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return true;
}

bool kvm_stats_open(struct kvm_stats_reader *r, int vcpu_fd)
{
	struct kvm_stats_header hdr;
	size_t desc_size;
	uint8_t *descs = NULL;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->exits_slot = -1;
	r->io_exits_slot = -1;

	int fd = ioctl(vcpu_fd, KVM_GET_STATS_FD, NULL);
	if (fd < 0)
		return false;
	if (!pread_all(fd, &hdr, sizeof(hdr), 0))
		goto fail;

	desc_size = sizeof(struct kvm_stats_desc) + hdr.name_size;
	descs = calloc(hdr.num_desc, desc_size);
	if (!descs || !pread_all(fd, descs, desc_size * hdr.num_desc,
				 hdr.desc_offset))
		goto fail;

	for (uint32_t i = 0; i < hdr.num_desc; i++) {
		const struct kvm_stats_desc *d =
			(const void *)(descs + i * desc_size);
		char name[KVM_STATS_NAME_MAX];

		/* The name is NUL-terminated within name_size bytes. */
		size_t len = strnlen(d->name, hdr.name_size);
		if (len == 0 || len >= sizeof(name))
			continue;
		memcpy(name, d->name, len);
		name[len] = '\0';
		/* Only plain counters: histograms have more than one item. */
		if (!wanted(name) || d->size != 1)
			continue;
		if (r->count == KVM_STATS_MAX) {
			/* Say so rather than report a stat as absent. */
			fprintf(stderr, "pvsmm-vmm: KVM stat %s not read: more than %d wanted stats\n",
				name, KVM_STATS_MAX);
			continue;
		}

		unsigned int slot = r->count++;
		memcpy(r->names[slot], name, len + 1);
		r->file_offsets[slot] = (uint64_t)hdr.data_offset + d->offset;
		if (!strcmp(name, "exits"))
			r->exits_slot = (int)slot;
		else if (!strcmp(name, "io_exits"))
			r->io_exits_slot = (int)slot;
	}
	free(descs);
	r->fd = fd;
	return true;

fail:
	free(descs);
	close(fd);
	return false;
}

bool kvm_stats_read(const struct kvm_stats_reader *r, uint64_t *values)
{
	for (unsigned int i = 0; i < r->count; i++) {
		if (!pread_all(r->fd, &values[i], sizeof(values[i]),
			       (off_t)r->file_offsets[i]))
			return false;
	}
	return true;
}

void kvm_stats_close(struct kvm_stats_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
