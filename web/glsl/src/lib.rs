//! The browser's shader compilers: glslang built for wasm32 (GLSL, HLSL) and naga (WGSL), in a
//! module of its own that the page loads (into a Web Worker, see `web/glsl/worker.js`) only when
//! a source is first compiled, so a first visit does not download them.
//!
//! It speaks the compile worker's protocol (`lanescope_front::answer_compile_request`): one JSON
//! request in, one JSON reply out, as the native app's worker process does over its pipes.

/// Compiles one request (JSON, as `lanescope_front::compile_request` writes it) and answers
/// with the reply (JSON, read by `lanescope_front::compile_reply`).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen::prelude::wasm_bindgen)]
pub fn compile(request: &str) -> String {
    #[cfg(target_arch = "wasm32")]
    constructors::run_once();
    lanescope_front::answer_compile_request(request)
}

/// glslang's C++ static constructors (its pool allocator, its built-in symbol tables' globals)
/// must run once before it is used. The linker runs them, and wasi-libc's exit handlers after
/// them, around *every* export call unless the module calls `__wasm_call_ctors` itself (a
/// "command" module); exit handlers run after the first compile leave the next one broken. So
/// this module calls it, once.
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)]
mod constructors {
    extern "C" {
        fn __wasm_call_ctors();
    }

    pub fn run_once() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: the linker-made function that runs the static constructors, called once before
        // any C++ code runs (a wasm module is single-threaded).
        ONCE.call_once(|| unsafe { __wasm_call_ctors() });
    }
}

/// One allocator for the whole module: Rust's memory comes from the C library's `malloc`, which
/// glslang uses. With two allocators (Rust's own and wasi-libc's) each growing the wasm memory
/// for itself, wasi-libc's took memory Rust had been given and both corrupted each other's
/// blocks (glslang's pool allocator found its guard blocks overwritten).
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)]
mod allocator {
    use std::alloc::{GlobalAlloc, Layout};

    extern "C" {
        fn malloc(size: usize) -> *mut u8;
        fn aligned_alloc(align: usize, size: usize) -> *mut u8;
        fn realloc(ptr: *mut u8, size: usize) -> *mut u8;
        fn free(ptr: *mut u8);
    }

    /// What wasi-libc's `malloc` aligns every block to (at least; it is 16 there).
    const MALLOC_ALIGN: usize = 8;

    struct CAllocator;

    // SAFETY: each method hands the request to the C allocator with the layout's size and an
    // alignment it guarantees (malloc's own, or aligned_alloc's for larger ones); `free` gets
    // back only blocks these returned.
    unsafe impl GlobalAlloc for CAllocator {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if layout.align() <= MALLOC_ALIGN {
                // SAFETY: a plain C allocation.
                unsafe { malloc(layout.size()) }
            } else {
                let size = layout.size().next_multiple_of(layout.align());
                // SAFETY: a power-of-two alignment and a size that is a multiple of it.
                unsafe { aligned_alloc(layout.align(), size) }
            }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
            // SAFETY: `ptr` came from `alloc` or `realloc` here.
            unsafe { free(ptr) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            if layout.align() <= MALLOC_ALIGN {
                // SAFETY: `ptr` came from `malloc` (alignment small enough) here.
                return unsafe { realloc(ptr, new_size) };
            }
            // SAFETY: the caller's layout with the new size is valid (GlobalAlloc's contract).
            let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
            // SAFETY: as in `alloc`.
            let new = unsafe { self.alloc(new_layout) };
            if !new.is_null() {
                // SAFETY: both blocks hold at least the smaller size and do not overlap.
                unsafe {
                    std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                    free(ptr);
                }
            }
            new
        }
    }

    #[global_allocator]
    static ALLOCATOR: CAllocator = CAllocator;
}
