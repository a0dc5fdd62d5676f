/* Peer list parser: never crashes; what it accepts survives write -> parse unchanged (names,
 * addresses, order), and matching a list against itself pairs every peer with itself. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/peer_list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cs_peer_list a, b;
    struct cs_error err;
    if (cs_peer_list_parse(&a, (const char *)data, size, "fuzz", &err) < 0)
        return 0;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out || cs_peer_list_write(out, &a, &err) < 0)
        abort();
    fclose(out);
    if (cs_peer_list_parse(&b, text, len, "again", &err) < 0 || a.count != b.count)
        abort();
    uint32_t *at = malloc((a.count ? a.count : 1) * sizeof *at);
    if (!at || cs_peer_list_match(&a, &b, "again", at, &err) < 0)
        abort();
    for (uint32_t i = 0; i < a.count; i++)
        if (at[i] != i || strcmp(a.peers[i].name, b.peers[i].name) != 0 ||
            !cs_peer_address_equal(&a.peers[i].address, &b.peers[i].address))
            abort();
    free(at);
    free(text);
    cs_peer_list_free(&a);
    cs_peer_list_free(&b);
    return 0;
}
