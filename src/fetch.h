/* fetch.h: placeholder */
