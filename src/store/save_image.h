/* save_image.h - the head of a libvirt QEMU save file, rewritten for
 * another instance (pure, unit-tested).
 *
 * libvirt restores a save file only as the domain it was saved as (name,
 * UUID and MACs must match the XML given to virDomainRestoreFlags). One
 * saved ready state serves every instance of a topology: an instance whose
 * domain has another name restores from a copy whose head names its
 * domain; the migration stream after the head is left as it is.
 *
 * The layout (libvirt's qemu_saveimage.h, format version 2): the magic
 * "LibvirtQemudSave", then native-endian u32 version, data_len,
 * was_running, compressed, cookieOffset and 14 unused; then data_len bytes
 * of data: the domain XML (NUL-terminated), the migration cookie at
 * cookieOffset (NUL-terminated), zeros; then QEMU's stream. */
#ifndef LAB_SAVE_IMAGE_H
#define LAB_SAVE_IMAGE_H

#include <glib.h>

#define LAB_SAVE_IMAGE_HEAD 92u

/* The length of the whole head (LAB_SAVE_IMAGE_HEAD + data_len) from its
 * first LAB_SAVE_IMAGE_HEAD bytes; 0 with *why when it is not a complete,
 * uncompressed version-2 save file. */
gsize lab_save_image_head_len(const guchar *head, gsize n, char **why);
/* The text of the first <TAG>...</TAG> of XML (to free), NULL when none:
 * the domain's name and UUID in a save file's XML. */
char *lab_save_image_text(const char *xml, const char *tag);
/* Rewrite HEAD (the whole head, N bytes) in place so its XML and cookie
 * name domain NAME with UUID: same length, so the stream after it stays
 * where it is. NULL on success, else why not (nothing changed). */
char *lab_save_image_rename(guchar *head, gsize n, const char *name,
			    const char *uuid);

#endif
