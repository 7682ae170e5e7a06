#include <stdio.h>
int main(void) { puts("kbtui"); return 0; }
