#include "build/footprint.h"

#include <fmt/core.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "catalog/catalog.h"

namespace rb::build {
namespace {

// tests/data/build/*-excerpt.map: excerpts of real maps of the FreeRTOS and
// bare images for qemu-netduinoplus2 (README.md there). The expected sums are
// the sizes of the listed input sections, added up by hand.
std::filesystem::path data(const char* name) {
  return std::filesystem::path(RTOSBENCH_TEST_DATA) / "build" / name;
}

// The kernel ports of the firmware tree, as the run pipeline and `rtosbench
// footprint` read them: each kernel's footprint rules come from its
// kernel.yaml, none from the host.
const catalog::Catalog& tree() {
  static const catalog::Catalog kTree = [] {
    std::vector<Diagnostic> d;
    auto c = catalog::load(std::filesystem::path(RTOSBENCH_SOURCE_DIR) / "firmware", d);
    EXPECT_TRUE(c.ok()) << (d.empty() ? c.error().message : d.front().format());
    return c.ok() ? *c : catalog::Catalog{};
  }();
  return kTree;
}
const std::vector<model::KernelSpec>& kernels() {
  return tree().kernels;
}

// The reference port (kernel.yaml `reference: true`), as the run pipeline
// and `rtosbench footprint` pass it; the bare excerpts below are its images.
std::string reference() {
  const auto* r = tree().reference();
  EXPECT_NE(r, nullptr);
  return r ? r->port : "";
}

// The footprint rules firmware/ports/<port>/kernel.yaml declares.
const model::FootprintRules& rules(const std::string& port) {
  static const model::FootprintRules kNone;
  for (const auto& k : kernels())
    if (k.port == port) return k.footprint;
  ADD_FAILURE() << "no port " << port << " in the firmware tree";
  return kNone;
}

class FootprintFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("rb-footprint-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  static void write(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  // A firmware build directory as scripts/fw-build.sh leaves it.
  std::filesystem::path build_dir(const std::string& name, const std::string& port, const char* map,
                                  const std::string& size_json,
                                  const std::string& opt = "-O2 -g0") {
    auto d = root_ / name;
    std::filesystem::create_directories(d);
    std::filesystem::copy_file(data(map), d / "rtosbench-fw.map");
    write(d / "size.json", size_json);
    write(d / "CMakeCache.txt",
          "# This is the CMakeCache file.\n"
          "CMAKE_BUILD_TYPE:STRING=\n"
          "CMAKE_HOME_DIRECTORY:INTERNAL=/src/rtosbench/firmware\n"
          "RB_BOARD:STRING=qemu-netduinoplus2\n"
          "RB_FPU_CONTEXT:STRING=0\n"
          "RB_NONCE:STRING=5eed0105\n"
          "RB_OPT:STRING=" +
              opt +
              "\n"
              "RB_PORT:STRING=" +
              port +
              "\n"
              "RB_SAMPLES:STRING=2000\n"
              "RB_TESTS:STRING=all\n"
              "RB_TICK_HZ:STRING=1000\n"
              "RB_WARMUP:STRING=200\n"
              "//Help text of a variable that is not an option\n"
              "RB_OPT-ADVANCED:INTERNAL=1\n");
    return d;
  }
  std::filesystem::path root_;
};

TEST(SumMap, CountsKernelPortGlueAndLibrariesByKind) {
  auto m = sum_map_file(data("freertos-excerpt.map"), "freertos", rules("freertos"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  // rb_kernel.dir/: .text 0x134 + 0xa4 + 0x28 (long names, wrapped), .data 4 + 4, .bss 4 + 4.
  EXPECT_EQ(m->kernel, (SectionBytes{512, 8, 8}));
  // ports/freertos/: .text 4 + 4 + .rodata (in .text) 9 + 0x58; .bss 0x800 + 0x4c.
  EXPECT_EQ(m->port_glue, (SectionBytes{105, 0, 2124}));
  // libc_nano.a(memcpy) 0x134 + (memset) 0xa4 on one line each, libgcc.a .ARM.exidx 8.
  EXPECT_EQ(m->libs, (SectionBytes{480, 0, 0}));
  EXPECT_EQ(m->kernel.flash(), 520u);
  EXPECT_EQ(m->kernel.ram(), 16u);
}

TEST(SumMap, TheBarePortIsThePortGlueOfTheBareImage) {
  auto bare = sum_map_file(data("bare-excerpt.map"), "bare", rules("bare"));
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  EXPECT_EQ(bare->kernel, SectionBytes{});
  // .text 0x54 + 0x1c + 4, .rodata 0x1f + 5 + 0x58; .bss 4 + 0x800 + 4 + 4 (the fill is nobody's).
  EXPECT_EQ(bare->port_glue, (SectionBytes{240, 0, 2060}));
  EXPECT_EQ(bare->libs, (SectionBytes{480, 0, 0}));
  // The glue is the named port's only.
  auto other = sum_map_file(data("bare-excerpt.map"), "freertos", rules("freertos"));
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->port_glue, SectionBytes{});
}

TEST(SumMap, WrappedAndOneLineInputSectionsCountAlike) {
  const std::string head =
      "Linker script and memory map\n\n.text           0x08000000      0x100\n";
  auto one_line =
      sum_map(head + " .text.a        0x08000000       0x10 CMakeFiles/rb_kernel.dir/k/a.c.obj\n",
              "p", {}, "x");
  auto wrapped =
      sum_map(head +
                  " .text.a_name_too_long_for_its_column\n"
                  "                0x08000000       0x10 CMakeFiles/rb_kernel.dir/k/a.c.obj\n",
              "p", {}, "x");
  ASSERT_TRUE(one_line.ok() && wrapped.ok());
  EXPECT_EQ(one_line->kernel.text, 16u);
  EXPECT_EQ(wrapped->kernel.text, 16u);
  // A symbol line after a wrapped name is not a second section; a size line
  // without a name before it counts for nothing.
  auto symbol = sum_map(
      head +
          " .text.b\n                0x08000000       0x10 CMakeFiles/rb_kernel.dir/k/b.c.obj\n"
          "                0x08000000                b_function\n"
          "                0x08000010       0x20 CMakeFiles/rb_kernel.dir/k/b.c.obj\n",
      "p", {}, "x");
  ASSERT_TRUE(symbol.ok());
  EXPECT_EQ(symbol->kernel.text, 16u);
}

TEST(SumMap, OnlyTheMemoryMapCountsAndOnlyFlashAndRamSections) {
  // Discarded input sections come before the memory map; .comment and debug
  // sections are in neither flash nor RAM.
  auto m = sum_map(
      " .text.gone\n                0x00000000       0x64 CMakeFiles/rb_kernel.dir/k/t.c.obj\n"
      "Linker script and memory map\n"
      ".comment        0x00000000       0x26\n"
      " .comment       0x00000000       0x26 CMakeFiles/rb_kernel.dir/k/t.c.obj\n"
      ".debug_info     0x00000000      0x8e7\n"
      " .debug_info    0x00000000      0x8e7 CMakeFiles/rb_kernel.dir/k/t.c.obj\n"
      ".isr_vector     0x08000000      0x188\n"
      " .isr_vector    0x08000000      0x188 CMakeFiles/rtosbench-fw.dir/ports/p/v.c.obj\n"
      " *fill*         0x08000188       0x38 CMakeFiles/rb_kernel.dir/k/t.c.obj\n",
      "p", {}, "x");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->kernel, SectionBytes{});
  EXPECT_EQ(m->port_glue, (SectionBytes{0x188, 0, 0}));
}

TEST(SumMap, AZephyrImageSplitsTheKernelFromItsDevicesAndLeavesTheApplicationOut) {
  // The layout of a Zephyr 3.5 map (firmware/ports/zephyr): output sections
  // without a dot, paths relative to the Zephyr build directory.
  auto m = sum_map(
      "Linker script and memory map\n"
      "rom_start       0x08000000      0x188\n"
      " *(.exc_vector_table._vector_table_section)\n"
      " .exc_vector_table._vector_table_section\n"
      "                0x08000000       0x40 "
      "zephyr/arch/arch/arm/core/cortex_m/libarch__arm__core__cortex_m.a(vector_table.S.obj)\n"
      " .gnu.linkonce.irq_vector_table\n"
      "                0x08000040      0x148 zephyr/arch/common/libisr_tables.a(isr_tables.c.obj)\n"
      "text            0x08000188     0x4ef4\n"
      " .text.z_impl_k_sem_give\n"
      "                0x08000200       0x60 zephyr/kernel/libkernel.a(sem.c.obj)\n"
      " .text.stm32f4_init\n"
      "                0x08000260       0x20 "
      "zephyr/soc/soc/arm/st_stm32/stm32f4/libsoc.a(soc.c.obj)\n"
      " .text.rb_run_all\n"
      "                0x08000280       0x80 app/libapp.a(main.c.obj)\n"
      " .text.rb_zep_sem_give\n"
      "                0x08000300        0x8 "
      "/b/ports/zephyr/librb_port_glue.a(rb_port_zephyr.c.obj)\n"
      " .text.memset   0x08000308       0x10 "
      "zephyr/lib/libc/minimal/liblib__libc__minimal.a(string.c.obj)\n"
      "initlevel       0x08005084       0x20\n"
      " .z_init_PRE_KERNEL_10_0_\n"
      "                0x08005084        0x8 "
      "zephyr/drivers/timer/libdrivers__timer.a(cortex_m_systick.c.obj)\n"
      " .z_init_PRE_KERNEL_10_0_\n"
      "                0x0800508c        0x8 zephyr/libzephyr.a(soc_config.c.obj)\n"
      "sw_isr_table    0x080050b8      0x290\n"
      " .gnu.linkonce.sw_isr_table\n"
      "                0x080050b8      0x290 zephyr/CMakeFiles/zephyr_final.dir/isr_tables.c.obj\n"
      "datas           0x20000000       0x24 load address 0x08006164\n"
      " .data.slice_ticks\n"
      "                0x20000000        0x4 zephyr/kernel/libkernel.a(sched.c.obj)\n"
      "device_states   0x20000024        0x2 load address 0x08006188\n"
      " .z_devstate    0x20000024        0x2 zephyr/drivers/timer/libdrivers__timer.a(x.c.obj)\n"
      "bss             0x20000028    0x1746d\n"
      " .bss._kernel   0x20000028       0x20 zephyr/kernel/libkernel.a(init.c.obj)\n"
      " .bss.rb_buf_a  0x20000048     0x4000 app/libapp.a(main.c.obj)\n"
      " .bss.rb_zep_sem\n"
      "                0x20004048       0x60 "
      "/b/ports/zephyr/librb_port_glue.a(rb_port_zephyr.c.obj)\n"
      "noinit          0x20017498     0x1800\n"
      " .noinit.z_idle_stacks\n"
      "                0x20017498      0x800 zephyr/kernel/libkernel.a(init.c.obj)\n"
      "OUTPUT(zephyr/zephyr.elf elf32-littlearm)\n",
      "zephyr", rules("zephyr"), "x");
  ASSERT_TRUE(m.ok()) << m.error().message;
  // Vector table 0x40 + ISR tables 0x148 + 0x290 + k_sem_give 0x60; data 4; bss 0x20 + 0x800.
  EXPECT_EQ(m->kernel, (SectionBytes{0x40 + 0x148 + 0x290 + 0x60, 4, 0x820}));
  // SoC init 0x20, the timer's and the SoC's init entries 8 + 8; device state 2.
  EXPECT_EQ(m->kernel_support, (SectionBytes{0x30, 2, 0}));
  EXPECT_EQ(m->port_glue, (SectionBytes{8, 0, 0x60}));
  // Zephyr's minimal libc is a C library; app/libapp.a (harness, board) is nobody's.
  EXPECT_EQ(m->libs, (SectionBytes{0x10, 0, 0}));
  // Other maps have no kernel support objects.
  auto frt = sum_map_file(data("freertos-excerpt.map"), "freertos", rules("freertos"));
  ASSERT_TRUE(frt.ok());
  EXPECT_EQ(frt->kernel_support, SectionBytes{});
  // The boards' start-up code is counted apart: in the FreeRTOS image (its
  // vector table, fault strings and .msp_stack), not in the Zephyr image,
  // whose reset, vectors and stacks are Zephyr's.
  EXPECT_EQ(frt->startup, (SectionBytes{0x188 + 0x11 + 0x1e, 0, 0x800}));
  EXPECT_EQ(m->startup, SectionBytes{});
  // The boards' main stack, an output section without input sections.
  auto msp = sum_map(
      "Linker script and memory map\n"
      ".msp_stack      0x20007cd8      0x800 load address 0x08004e98\n"
      "                0x200084d8                        . = (. + _msp_size)\n"
      " *fill*         0x20007cd8      0x800 \n",
      "bare", rules("bare"), "x");
  ASSERT_TRUE(msp.ok());
  EXPECT_EQ(msp->startup, (SectionBytes{0, 0, 0x800}));
}

TEST(SumMap, ANuttXImageSplitsTheSchedulerAndCpuPortFromItsSupport) {
  // The layout of a NuttX 12.4 map (firmware/ports/nuttx): NuttX's archives
  // in staging/, the harness and port objects from rtosbench's CMake.
  auto m = sum_map(
      "Linker script and memory map\n"
      ".text           0x08000000     0x9000\n"
      " .text.nxsem_post\n"
      "                0x08000200       0x60 /b/nuttx-tree/nuttx/staging/libsched.a(sem_post.o)\n"
      " .text.arm_doirq\n"
      "                0x08000260       0x40 /b/nuttx-tree/nuttx/staging/libarch.a(arm_doirq.o)\n"
      " .text.up_idle  0x080002a0        0x4 /b/nuttx-tree/nuttx/staging/libarch.a(up_idle.o)\n"
      " .text.stm32_rcc\n"
      "                0x080002a4       0x30 /b/nuttx-tree/nuttx/staging/libarch.a(stm32_rcc.o)\n"
      " .text.memset   0x080002d4       0x10 /b/nuttx-tree/nuttx/staging/libc.a(lib_memset.o)\n"
      " .text.mm_malloc\n"
      "                0x080002e4       0x20 /b/nuttx-tree/nuttx/staging/libmm.a(mm_malloc.o)\n"
      " .text.stm32_boardinitialize\n"
      "                0x08000304        0x8 "
      "/b/nuttx-tree/nuttx/arch/arm/src/board/libboard.a(stm32_boot.o)\n"
      " .text.rb_px_sem_give\n"
      "                0x0800030c        0xc "
      "/b/CMakeFiles/rtosbench.dir/ports/posix/rbp_posix.c.obj\n"
      " .text.up_idle  0x08000318        0x4 "
      "/b/CMakeFiles/rtosbench.dir/ports/nuttx/rbp_sys_nuttx.c.obj\n"
      " .text.rb_run_all\n"
      "                0x0800031c       0x80 /b/CMakeFiles/rtosbench.dir/harness/main.c.obj\n"
      " .text.__aeabi_uldivmod\n"
      "                0x0800039c       0x30 "
      "/usr/lib/gcc/arm-none-eabi/12.2.1/libgcc.a(_udivmoddi4.o)\n"
      ".bss            0x20000000     0x1000\n"
      " .bss.g_readytorun\n"
      "                0x20000000        0x8 "
      "/b/nuttx-tree/nuttx/staging/libsched.a(sched_globals.o)\n",
      "nuttx", rules("nuttx"), "nuttx.map");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->kernel, (SectionBytes{0x60 + 0x40 + 0x4, 0, 0x8}));
  EXPECT_EQ(m->kernel_support, (SectionBytes{0x30 + 0x10 + 0x20 + 0x8, 0, 0}));
  // The POSIX port and the NuttX layer are the port; the harness is nobody's.
  EXPECT_EQ(m->port_glue, (SectionBytes{0xc + 0x4, 0, 0}));
  EXPECT_EQ(m->libs, (SectionBytes{0x30, 0, 0}));
}

TEST(SumMap, AKernelsOwnFilesAndSectionsAreWhatItsRulesSay) {
  // The host knows no kernel: without its rules a Zephyr-like image's own
  // archives are nobody's and its dotless output sections hold nothing.
  const std::string map =
      "Linker script and memory map\n"
      "text            0x08000188     0x4ef4\n"
      " .text.z_impl_k_sem_give\n"
      "                0x08000200       0x60 zephyr/kernel/libkernel.a(sem.c.obj)\n"
      " .text.x        0x08000260       0x20 zephyr/soc/libsoc.a(soc.c.obj)\n"
      " .text.main     0x08000280       0x80 app/libapp.a(main.c.obj)\n"
      " .text.memset   0x08000300       0x10 zephyr/lib/liblib__libc.a(string.c.obj)\n"
      "k_sem_area      0x20000000        0x8\n"
      " ._k_sem.static 0x20000000        0x8 zephyr/kernel/libkernel.a(sem.c.obj)\n"
      ".bss            0x20000008        0x4\n"
      " .bss.y         0x20000008        0x4 app/libapp.a(main.c.obj)\n";
  auto none = sum_map(map, "zephyr", {}, "x");
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_EQ(none->kernel, SectionBytes{});
  EXPECT_EQ(none->kernel_support, SectionBytes{});
  // Only app/libapp.a's .bss counts, as a library member: `text` is no
  // section without the rules, and the rules would say the archive is nobody's.
  EXPECT_EQ(none->libs, (SectionBytes{0, 0, 4}));
  // First match wins; `none` takes a file out; `*` crosses `/`; section
  // names are patterns too.
  model::FootprintRules r;
  r.files = {{"app/libapp.a(*", "none"},
             {"zephyr/kernel/*", "kernel"},
             {"zephyr/*", "kernel_support"},
             {"*", "kernel"}};
  r.sections = {{"text", {"text"}}, {"data", {"k_*_area"}}};
  auto m = sum_map(map, "zephyr", r, "x");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->kernel, (SectionBytes{0x60, 8, 0}));
  EXPECT_EQ(m->kernel_support, (SectionBytes{0x20 + 0x10, 0, 0}));
  EXPECT_EQ(m->libs, SectionBytes{});  // a rule matched first
  // The generic owners come before the rules: the port glue and rb_kernel
  // stay theirs whatever a rule says.
  auto glue = sum_map(
      "Linker script and memory map\n.text 0x08000000 0x100\n"
      " .text.a        0x08000000       0x10 CMakeFiles/rb_kernel.dir/k/a.c.obj\n"
      " .text.b        0x08000010        0x8 /b/ports/zephyr/librb_port_glue.a(g.c.obj)\n",
      "zephyr", model::FootprintRules{{{"*", "kernel_support"}}, {}}, "x");
  ASSERT_TRUE(glue.ok());
  EXPECT_EQ(glue->kernel, (SectionBytes{0x10, 0, 0}));
  EXPECT_EQ(glue->port_glue, (SectionBytes{8, 0, 0}));
  EXPECT_EQ(glue->kernel_support, SectionBytes{});
}

TEST(SumMap, ErrorsNameTheFileAndTheCause) {
  auto none = sum_map("Archive member included to satisfy reference by file (symbol)\n", "p", {},
                      "some.map");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "some.map: no 'Linker script and memory map' line: not a GNU ld map file");
  auto bad = sum_map(
      "Linker script and memory map\n.data 0x20000000 0x8\n"
      " .data.x        0x20000000       0x4g CMakeFiles/rb_kernel.dir/k/t.c.obj\n",
      "p", {}, "some.map");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "some.map:3: size '0x4g' is not hexadecimal");
  auto missing = sum_map_file("/nonexistent/rtosbench-fw.map", "p", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "/nonexistent/rtosbench-fw.map not found");
}

ImageFigures figures(const char* port, const char* map, uint64_t flash, uint64_t ram) {
  ImageFigures f;
  f.port = port;
  f.board = "qemu-netduinoplus2";
  f.size.flash = flash;
  f.size.ram = ram;
  auto m = sum_map_file(data(map), port, rules(port));
  EXPECT_TRUE(m.ok());
  if (m.ok()) f.map = *m;
  return f;
}

TEST(KernelAlone, DeltaIsImageMinusBareAndLibsAreTheDifferenceOfBoth) {
  // The size.json figures of the full images the excerpts come from.
  ASSERT_EQ(reference(), "bare");
  auto f = kernel_footprint(figures("freertos", "freertos-excerpt.map", 21980, 39804),
                            figures("bare", "bare-excerpt.map", 17832, 33960), reference());
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->delta_flash(), 21980 - 17832);
  EXPECT_EQ(f->delta_ram(), 39804 - 33960);
  EXPECT_EQ(f->libs_flash, 0);
  // startup: only the FreeRTOS excerpt lists startup.c's fault strings (0x11 + 0x1e).
  EXPECT_EQ(f->startup_flash, 47);
  EXPECT_EQ(
      to_json(*f).dump(),
      R"({"bare":{"flash":17832,"ram":33960},"bare_port":{"bss":2060,"data":0,"flash":240,"ram":2060,"text":240},)"
      R"("board":"qemu-netduinoplus2","delta":{"flash":4148,"ram":5844},)"
      R"("image":{"flash":21980,"ram":39804},"kernel":{"bss":8,"data":8,"flash":520,"ram":16,"text":512},)"
      R"("kernel_support":{"bss":0,"data":0,"flash":0,"ram":0,"text":0},)"
      R"("libs":{"flash":0,"ram":0},"port":"freertos",)"
      R"("port_glue":{"bss":2124,"data":0,"flash":105,"ram":2124,"text":105},"reference":"bare",)"
      R"("startup":{"flash":47,"ram":0}})");
}

TEST(KernelAlone, NegativeDifferencesStaySigned) {
  auto k = figures("freertos", "freertos-excerpt.map", 100, 100);
  auto b = figures("bare", "bare-excerpt.map", 150, 130);
  b.map.libs.text += 24;  // the bare image pulls in more of the C library
  auto f = kernel_footprint(k, b, reference());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->delta_flash(), -50);
  EXPECT_EQ(f->delta_ram(), -30);
  EXPECT_EQ(f->libs_flash, -24);
  EXPECT_EQ(to_json(*f)["delta"]["flash"].get<int64_t>(), -50);
}

TEST(KernelAlone, RefusesANonBareReferenceAndAnImageWithoutKernel) {
  auto k = figures("freertos", "freertos-excerpt.map", 21980, 39804);
  auto notbare = figures("threadx", "bare-excerpt.map", 17832, 33960);
  auto r = kernel_footprint(k, notbare, reference());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "the reference image is not a bare-port build (RB_PORT=threadx)");
  auto template_port = figures("template", "bare-excerpt.map", 17000, 33000);
  r = kernel_footprint(template_port, figures("bare", "bare-excerpt.map", 17832, 33960),
                       reference());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "no kernel object (rb_kernel) in the map file of the template image; is template a "
            "kernel port?");
}

// The reference is whichever port the catalog names, not a name in the host:
// the bare image under another port name is accepted as that port's, and
// the bare port is then refused as a reference.
TEST(KernelAlone, TheReferencePortIsTheOneNamed) {
  auto k = figures("freertos", "freertos-excerpt.map", 21980, 39804);
  auto refsched = figures("bare", "bare-excerpt.map", 17832, 33960);
  refsched.port = "refsched";
  auto f = kernel_footprint(k, refsched, "refsched");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->delta_flash(), 21980 - 17832);
  EXPECT_EQ(f->reference, "refsched");
  EXPECT_EQ(to_json(*f)["reference"], "refsched");
  EXPECT_EQ(to_json(*f)["bare"]["flash"], 17832);  // the field keeps its name
  auto r = kernel_footprint(k, figures("bare", "bare-excerpt.map", 17832, 33960), "refsched");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "the reference image is not a refsched-port build (RB_PORT=bare)");
  std::map<std::string, std::string> ko{{"RB_PORT", "freertos"}}, bo{{"RB_PORT", "refsched"}};
  EXPECT_TRUE(check_like_for_like(ko, "K", bo, "B", "refsched").ok());
  auto s = check_like_for_like(ko, "K", bo, "B", "bare");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "B is not a bare-port build (RB_PORT=refsched)");
}

TEST(LikeForLike, EveryOptionMustAgreeAndTheReferenceMustBeBare) {
  std::map<std::string, std::string> k{{"RB_PORT", "freertos"},  {"RB_BOARD", "qemu-netduinoplus2"},
                                       {"RB_OPT", "-O2 -g0"},    {"RB_TICK_HZ", "1000"},
                                       {"RB_FPU_CONTEXT", "0"},  {"RB_SAMPLES", "2000"},
                                       {"RB_WARMUP", "200"},     {"RB_TESTS", "all"},
                                       {"RB_NONCE", "5eed0105"}, {"RB_KERNEL_VERSION", "10.5.1"}};
  auto b = k;
  b["RB_PORT"] = "bare";
  b["RB_NONCE"] = "0badcafe";  // neither the nonce nor the kernel version matters
  b["RB_KERNEL_VERSION"] = "n/a";
  EXPECT_TRUE(check_like_for_like(k, "K", b, "B", reference()).ok());
  for (const char* option : kLikeForLikeOptions) {
    auto other = b;
    other[option] = "x";
    auto s = check_like_for_like(k, "K", other, "B", reference());
    ASSERT_FALSE(s.ok()) << option;
    EXPECT_EQ(s.error().message,
              fmt::format("the builds differ in {} ('{}' in K, 'x' in B); compare like with like",
                          option, k.at(option)));
    other.erase(option);  // missing counts as empty
    s = check_like_for_like(k, "K", other, "B", reference());
    ASSERT_FALSE(s.ok()) << option;
    EXPECT_NE(s.error().message.find("'' in B"), std::string::npos) << s.error().message;
  }
  auto s = check_like_for_like(k, "K", k, "B", reference());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "B is not a bare-port build (RB_PORT=freertos)");
}

TEST_F(FootprintFiles, ReadsABuildDirectoryAndRefusesAnIncompleteOne) {
  auto k = build_dir("k", "freertos", "freertos-excerpt.map",
                     R"({"text":21972,"data":8,"bss":39796,"flash":21980,"ram":39804})");
  auto image = read_build_dir(k, kernels());
  ASSERT_TRUE(image.ok()) << image.error().message;
  EXPECT_EQ(image->options.at("RB_OPT"), "-O2 -g0");
  EXPECT_EQ(image->options.count("RB_OPT-ADVANCED"), 0u);
  EXPECT_EQ(image->figures.port, "freertos");
  EXPECT_EQ(image->figures.size.flash, 21980u);
  EXPECT_EQ(image->figures.map.kernel.text, 512u);
  EXPECT_EQ(firmware_tree_of(k), "/src/rtosbench/firmware");
  EXPECT_EQ(firmware_tree_of(root_ / "nowhere"), "");

  std::filesystem::remove(k / "size.json");
  auto missing = read_build_dir(k, kernels());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, fmt::format("{} not found (is {} a built firmware directory?)",
                                                 (k / "size.json").string(), k.string()));
  // The map is sorted by the rules of the kernel whose port RB_PORT names.
  auto unknown = build_dir("u", "no_such_port", "freertos-excerpt.map",
                           R"({"text":1,"data":0,"bss":0,"flash":1,"ram":0})");
  auto refused = read_build_dir(unknown, kernels());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            (unknown / "CMakeCache.txt").string() +
                ": RB_PORT=no_such_port is no kernel port of the firmware tree");
  write(k / "size.json", R"({"flash":1})");
  auto bad = read_build_dir(k, kernels());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find((k / "size.json").string() + ": not the expected"),
            std::string::npos)
      << bad.error().message;
}

TEST_F(FootprintFiles, BuildDirectoriesOfTheSameOptionsGiveTheKernelAlone) {
  auto k =
      read_build_dir(build_dir("k", "freertos", "freertos-excerpt.map",
                               R"({"text":21972,"data":8,"bss":39796,"flash":21980,"ram":39804})"),
                     kernels());
  auto b =
      read_build_dir(build_dir("b", "bare", "bare-excerpt.map",
                               R"({"text":17832,"data":0,"bss":33960,"flash":17832,"ram":33960})"),
                     kernels());
  auto os = read_build_dir(
      build_dir("os", "bare", "bare-excerpt.map",
                R"({"text":17000,"data":0,"bss":33960,"flash":17000,"ram":33960})", "-Os -g0"),
      kernels());
  ASSERT_TRUE(k.ok() && b.ok() && os.ok());
  EXPECT_TRUE(check_like_for_like(k->options, "k", b->options, "b", reference()).ok());
  auto f = kernel_footprint(k->figures, b->figures, reference());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->delta_flash(), 4148);
  EXPECT_EQ(f->bare_port.text, 240u);
  auto refused = check_like_for_like(k->options, "k", os->options, "os", reference());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(
      refused.error().message,
      "the builds differ in RB_OPT ('-O2 -g0' in k, '-Os -g0' in os); compare like with like");
}

TEST_F(FootprintFiles, TheRunPipelinesImagesAreComparedByTheirDefines) {
  auto kd = build_dir("k", "freertos", "freertos-excerpt.map", "{}");
  auto bd = build_dir("b", "bare", "bare-excerpt.map", "{}");
  BuildOutput k, b;
  k.defines = {{"RB_PORT", "freertos"}, {"RB_BOARD", "qemu-netduinoplus2"},
               {"RB_OPT", "-O2 -g0"},   {"RB_TICK_HZ", "1000"},
               {"RB_FPU_CONTEXT", "0"}, {"RB_SAMPLES", "2000"},
               {"RB_WARMUP", "200"},    {"RB_TESTS", "all"}};
  b.defines = k.defines;
  b.defines["RB_PORT"] = "bare";
  k.map = kd / "rtosbench-fw.map";
  b.map = bd / "rtosbench-fw.map";
  k.footprint.flash = 21980;
  k.footprint.ram = 39804;
  b.footprint.flash = 17832;
  b.footprint.ram = 33960;
  auto f = kernel_footprint_of(k, rules("freertos"), b, rules("bare"), reference());
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->delta_ram(), 5844);
  EXPECT_EQ(f->kernel.text, 512u);
  EXPECT_EQ(f->bare_port.bss, 2060u);

  b.defines["RB_TICK_HZ"] = "100";
  auto refused = kernel_footprint_of(k, rules("freertos"), b, rules("bare"), reference());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "the builds differ in RB_TICK_HZ ('1000' in the freertos image, '100' in the bare "
            "reference image); "
            "compare like with like");
  b.defines["RB_TICK_HZ"] = "1000";
  std::filesystem::remove(b.map);
  auto missing = kernel_footprint_of(k, rules("freertos"), b, rules("bare"), reference());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, b.map.string() + " not found");
}

}  // namespace
}  // namespace rb::build
