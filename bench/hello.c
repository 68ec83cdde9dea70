/* The floor for `make bench`: the cheapest useful process (exec, write a line, exit). */
#include <stdio.h>

int main(void) {
    puts("Hello, world!");
    return 0;
}
