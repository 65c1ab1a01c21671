/* place_saved.h - the saved ready state (saved.h) on a host's lab store:
 * the same virDomainSaveFlags / virDomainRestoreFlags, but every file is a
 * volume of the store, so a guest on another host restarts in seconds too.
 *
 * Volumes of the state with key KEY (its first 16 hex digits, K):
 * saved-K-GUEST.state, saved-K-GUEST-root.qcow2, saved-K-GUEST-diskN.qcow2
 * and the marker saved-K.ok, written last. A guest that is to be saved
 * boots on the -root/-disk volumes themselves (recorded as the instance's
 * own until the marker is there, so a save that never finished is removed
 * by `lab down`); after the save they are frozen, and every restore puts
 * the instance's own qcow2 over them. */
#ifndef LAB_PLACE_SAVED_H
#define LAB_PLACE_SAVED_H

#include <stdbool.h>
#include <libvirt/libvirt.h>
#include <glib.h>

struct lab_place;
struct lab_saved_guest;

/* Name of a volume of the saved state: "saved-K-GUEST" SUFFIX; GUEST NULL:
 * "saved-K" (the marker's base). */
char *lab_place_saved_name(const char *key, const char *guest,
			   const char *suffix);
/* Path on the host of that volume. */
char *lab_place_saved_path(struct lab_place *pl, const char *key,
			   const char *guest, const char *suffix);
/* NULL when the store holds a complete saved state KEY for GUESTS, else
 * why not; *absent when there is simply none. */
char *lab_place_saved_check(struct lab_place *pl, const char *key,
			    char **guests, bool *absent);
/* Delete every volume of saved state KEY (marker first). */
void lab_place_saved_discard(struct lab_place *pl, const char *key,
			     const char *why);
/* Pause every guest, save each to saved-K-GUEST.state, mark the state
 * complete. The guests' disks must be the state's own volumes. On success
 * the domains are stopped; on failure they run on and no marker exists. */
int lab_place_saved_save(struct lab_place *pl, virConnectPtr c,
			 const char *key, struct lab_saved_guest *gs, guint n);
/* Restore one guest: its own qcow2 (g->f->overlay, scratch) over the
 * frozen volumes, then virDomainRestoreFlags with g->xml. */
int lab_place_saved_restore(struct lab_place *pl, virConnectPtr c,
			    const char *key, const struct lab_saved_guest *g);

#endif
