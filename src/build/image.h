/* image.h - the guest base image and per-guest seeds and overlays. */
#ifndef LAB_IMAGE_H
#define LAB_IMAGE_H

#include "core/topology.h"

/* Path of the cached base image for the current recipe, or NULL with a
 * message naming `lab image` when it is not built. */
char *lab_image_path(void);

/* Directory of Debian's own kernel kept from the image (vmlinuz,
 * initrd.img, config, System.map), or NULL with a message. */
char *lab_image_kernel_dir(void);

/* Render the NoCloud user-data of a guest from guests/cloud-init/. */
char *lab_seed_user_data(const struct lab_guest *g);
/* Its meta-data (instance-id and hostname). */
char *lab_seed_meta_data(const struct lab_guest *g);
/* Pack a NoCloud seed ISO with cloud-localds. 0 on success. */
int lab_seed_write(const char *iso, const char *user_data,
		   const char *meta_data);
/* qcow2 overlay on top of base; `backing` NULL makes a blank disk. */
int lab_qcow2_create(const char *path, const char *backing, int size_mib);

int cmd_image(int argc, char **argv);

#endif
