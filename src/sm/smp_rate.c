/* PortInfo link rate codes <-> fabric model rates (include/cloudsm/smp.h). The discovery reads
 * rates through these and the SMA model writes them, so the two cannot drift apart. */
#include "cloudsm/smp.h"

/* LinkWidthActive bit -> lanes, in IBA 14.2.5.6 order (the 2x code came last, as bit 4). */
static const struct {
    uint8_t code;
    uint8_t lanes;
} widths[] = {{1, 1}, {2, 4}, {4, 8}, {8, 12}, {16, 2}};

uint8_t cs_smp_width_from_active(uint8_t link_width_active)
{
    for (unsigned i = 0; i < sizeof widths / sizeof widths[0]; i++)
        if (widths[i].code == link_width_active)
            return widths[i].lanes;
    return 0;
}

uint8_t cs_smp_width_to_active(uint8_t width)
{
    for (unsigned i = 0; i < sizeof widths / sizeof widths[0]; i++)
        if (widths[i].lanes == width)
            return widths[i].code;
    return 0;
}

enum cs_link_speed cs_smp_speed_from_active(uint8_t link_speed_active,
                                            uint8_t link_speed_ext_active)
{
    switch (link_speed_ext_active) {
    case 0:
        break; /* no extended speed: LinkSpeedActive says it */
    case 1:
        return CS_SPEED_FDR;
    case 2:
        return CS_SPEED_EDR;
    case 4:
        return CS_SPEED_HDR;
    case 8:
        return CS_SPEED_NDR;
    default:
        return CS_SPEED_UNKNOWN;
    }
    switch (link_speed_active) {
    case 1:
        return CS_SPEED_SDR;
    case 2:
        return CS_SPEED_DDR;
    case 4:
        return CS_SPEED_QDR;
    default:
        return CS_SPEED_UNKNOWN;
    }
}

void cs_smp_speed_to_active(enum cs_link_speed speed, uint8_t *link_speed_active,
                            uint8_t *link_speed_ext_active)
{
    uint8_t active = 0, ext = 0;
    switch (speed) {
    case CS_SPEED_SDR:
        active = 1;
        break;
    case CS_SPEED_DDR:
        active = 2;
        break;
    case CS_SPEED_QDR:
    case CS_SPEED_FDR10: /* a vendor attribute tells FDR10 apart; PortInfo cannot */
        active = 4;
        break;
    case CS_SPEED_FDR:
        active = 4;
        ext = 1;
        break;
    case CS_SPEED_EDR:
        active = 4;
        ext = 2;
        break;
    case CS_SPEED_HDR:
        active = 4;
        ext = 4;
        break;
    case CS_SPEED_NDR:
        active = 4;
        ext = 8;
        break;
    case CS_SPEED_UNKNOWN:
    case CS_SPEED_XDR: /* needs LinkSpeedExt2 fields this layer does not carry */
        break;
    }
    *link_speed_active = active;
    *link_speed_ext_active = ext;
}
