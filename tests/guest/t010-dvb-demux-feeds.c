// SPDX-License-Identifier: GPL-2.0
/*
 * t010 - a demux fd used first for a section filter, then for a PES filter,
 * must get a fresh feed list.
 *
 * Seed 010, "V4L/DVB: dvb-core: fix initialization of feeds list in demux
 * filter" (upstream 691c9ae099b9, 2.6.32.9 #40).  struct dmxdev_filter keeps
 * the section feed pointer and the PES feed list head in one union; 6.1's
 * dvb_dmxdev_pes_filter_set() (drivers/media/dvb-core/dmxdev.c) runs
 * INIT_LIST_HEAD(&feed.ts) every time.  Doing it once in dvb_demux_open(),
 * as 2.6.32.8 did, leaves the list head overwritten by the section filter.
 *
 * On vidtv's demux (no hardware): DMX_SET_FILTER (section, immediate start),
 * then on the same fd DMX_SET_PES_FILTER with output DMX_OUT_TSDEMUX_TAP
 * (other outputs return EINVAL before the list is touched), also started.
 *   patched:  both ioctls return 0.
 *   baseline: "list_add corruption. next is NULL." (DEBUG_LIST), then an
 *             Oops in dvb_dmxdev_start_feed: the kernel kills this process
 *             inside the ioctl, and the console scanner reports it.
 */
#include "lab_test.h"

#include <linux/dvb/dmx.h>
#include <sys/ioctl.h>

#define DEMUX	"/dev/dvb/adapter0/demux0"

int main(void)
{
	static const struct lab_info info = {
		.name = "t010-dvb-demux-feeds",
		.seed = "010",
		.title = "dvb-core: PES filter after a section filter on one demux fd",
		.bound_s = 30,
	};
	/* a report is 010's when dvb-core's dmxdev is in it */
	static const char *const pats[] = {
		"list_add corruption", "list_del corruption", "BUG:", "Oops",
		"dvb_dmxdev", NULL,
	};
	int found[5] = { 0 };
	struct dmx_sct_filter_params sct = {
		.pid = 0,			/* PAT: vidtv always sends it */
		.timeout = 0,
		.flags = DMX_IMMEDIATE_START,
	};
	struct dmx_pes_filter_params pes = {
		.pid = 0,
		.input = DMX_IN_FRONTEND,
		.output = DMX_OUT_TSDEMUX_TAP,
		.pes_type = DMX_PES_OTHER,
		.flags = DMX_IMMEDIATE_START,	/* walks the list: start_feed */
	};
	int fd, kfd, ret, splat;

	lab_begin(&info);
	fd = open(DEMUX, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ENODEV || errno == ENXIO))
		lab_skip("%s: %s (no DVB_VIDTV in this kernel)", DEMUX, strerror(errno));
	if (fd < 0)
		lab_fatal("open %s", DEMUX);
	kfd = lab_kmsg_open(1);

	if (ioctl(fd, DMX_SET_FILTER, &sct))
		lab_fatal("DMX_SET_FILTER (section, immediate start)");
	lab_diag("DMX_SET_FILTER section pid 0, immediate start: 0");

	lab_kmsg("DMX_SET_PES_FILTER on the same fd");
	ret = ioctl(fd, DMX_SET_PES_FILTER, &pes) ? -errno : 0;
	lab_diag("DMX_SET_PES_FILTER TSDEMUX_TAP/OTHER, immediate start: %s",
		 lab_errname(ret));
	ioctl(fd, DMX_STOP);
	close(fd);

	/* A DEBUG_LIST report can leave us alive: the log decides then. */
	splat = lab_kmsg_tally(kfd, pats, found, 5);
	if (splat && found[4])
		lab_end(LAB_FAIL, "the kernel reported feed list corruption in dvb_dmxdev");
	if (splat)
		lab_end(LAB_FAIL, "the kernel reported a list corruption or oops outside dvb_dmxdev");
	if (ret)
		lab_end(LAB_ERROR, "DMX_SET_PES_FILTER failed: %s", lab_errname(ret));
	lab_end(LAB_PASS, "section then PES filter on one fd: both ioctls returned 0");
}
