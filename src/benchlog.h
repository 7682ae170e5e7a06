/* benchlog.h: placeholder */
