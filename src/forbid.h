/* forbid.h: placeholder */
