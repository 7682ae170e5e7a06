/* eval.h: placeholder */
