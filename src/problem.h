/* problem.h: placeholder */
