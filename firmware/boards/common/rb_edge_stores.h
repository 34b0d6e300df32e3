/* The edge channels (rb_board.h; docs/firmware.md, "Edges") of a QEMU twin:
 * QEMU models no GPIO timing, so each channel is one store to a register
 * QEMU keeps and ignores (board.cmake RB_BOARD_EDGE_PINS emulated). The
 * board's board.c defines RB_EDGE_MK, RB_EDGE_EV and RB_EDGE_TK as those
 * three registers before it includes this file (once). */
#ifndef RB_EDGE_STORES_H
#define RB_EDGE_STORES_H

void rb_board_edge_init(void) {
  RB_EDGE_MK = 0;
  RB_EDGE_EV = 0;
  RB_EDGE_TK = 0;
}

void rb_board_edge_mk(int level) {
  RB_EDGE_MK = (uint32_t)level;
}

void rb_board_edge_tk(int level) {
  RB_EDGE_TK = (uint32_t)level;
}

void rb_board_edge_ev_rearm(void) {
  RB_EDGE_EV = 2u; /* armed: a hardware board's compare match would set it */
}

void rb_board_edge_ev_disarm(void) {
  RB_EDGE_EV = 0;
}

void rb_board_edge_ev(int level) {
  RB_EDGE_EV = (uint32_t)level;
}

#endif
