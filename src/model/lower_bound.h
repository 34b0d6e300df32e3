#pragma once
// An architectural lower bound of one series on one board
// (RB_BOARD_LOWER_BOUND_<series> in its board.cmake): no correct measurement
// of the series can be below it, so a figure below it is a broken ruler.
#include <cstdint>
#include <string>

namespace rb::model {

struct LowerBound {
  uint64_t cycles = 0;  // in core cycles (CONFIG core's clock)
  std::string why;      // what sets it, and the source of the figure
};

}  // namespace rb::model
