/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab_netplan.h - the address plan of the namespaces the network tests
 * build on the conntrack guest (lab-netns makes them, lab-flows talks to
 * them): namespace I owns /30 number I of 10.77.0.0/16, its root-side veth
 * vI holds END 1 and its own e0 END 2.  The clients route 10.77.0.0/16
 * through the conntrack guest.
 */
#ifndef LAB_NETPLAN_H
#define LAB_NETPLAN_H

#include <stdio.h>

#define LAB_NS_MAX	16384	/* /30s in a /16 */

static inline void lab_ns_addr(unsigned i, unsigned end, char *buf, size_t size)
{
	snprintf(buf, size, "10.77.%u.%u", i / 64, i % 64 * 4 + end);
}

#endif
