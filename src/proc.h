/* proc.h: placeholder */
