#include "cli/commands.h"

#include <array>

namespace rb::cli {

std::span<const Command> commands() {
  static const std::array kCommands{
      Command{"verify", "check a captured benchmark log and re-derive every statistic from RAW", add_verify},
  };
  return kCommands;
}

}  // namespace rb::cli
