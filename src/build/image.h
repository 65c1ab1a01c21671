/* image.h - the guest base image and the guests' NoCloud seeds. */
#ifndef LAB_IMAGE_H
#define LAB_IMAGE_H

#include "core/topology.h"

/* Path of the cached base image for the current recipe, or NULL with a
 * message naming `lab image` when it is not built. */
char *lab_image_path(void);

/* Directory of Debian's own kernel kept from the image (vmlinuz,
 * initrd.img, config, System.map), or NULL with a message. */
char *lab_image_kernel_dir(void);

/* Render the NoCloud user-data (a shell script) of a guest from
 * guests/seed/: common.sh, then its role's ROLE.sh. */
char *lab_seed_user_data(const struct lab_guest *g);
/* Its meta-data (instance-id and hostname). */
char *lab_seed_meta_data(const struct lab_guest *g);
/* Pack a NoCloud seed ISO with cloud-localds. 0 on success. */
int lab_seed_write(const char *iso, const char *user_data,
		   const char *meta_data);
/* The seed of USER_DATA + META_DATA, made once and kept by content under
 * $LAB_HOME/seeds/KEY.iso (the same guest gets the same seed, so the saved
 * state's key stays). The path, or NULL with a message. */
char *lab_seed_iso(const char *user_data, const char *meta_data);

/* `lab image`: build the base image, or find it in the cache. 0 or 1. */
int lab_image_build(void);

#endif
