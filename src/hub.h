/* hub.h: placeholder */
