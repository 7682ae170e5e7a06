/* formula.h: placeholder */
