//! Source-level debug information: the source files a module was compiled from, where each of
//! its instructions came from, the source functions (with inlining) and the source variables.
//! Read by the loader from `OpSource`/`OpString`/`OpLine` and from
//! `NonSemantic.Shader.DebugInfo.100`.

use serde::Serialize;

mod read;
pub use read::read;

/// One source file: its name as the compiler wrote it, and its text when the module embeds it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SourceFile {
    /// The file's name (or path) as the compiler wrote it.
    pub name: String,
    /// The file's text, when the module embeds it (`OpSource`, `DebugSource`).
    pub text: Option<String>,
    /// The source language, when said (`GLSL`, `HLSL`, `WGSL`, `Slang`, ...).
    pub language: Option<String>,
}

/// A place in a source file. `line` is 1-based; `column` is 1-based, 0 when unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct SourcePos {
    /// Index in [`DebugInfo::files`].
    pub file: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
}

/// A source function (from `DebugFunction`, or named by `OpName` on the function).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceFunction {
    /// The function's source name (demangled).
    pub name: String,
    /// Where it is defined, when said.
    pub pos: Option<SourcePos>,
    /// The file it is in (known even when its line is not).
    pub file: Option<u32>,
}

/// A lexical scope: a function body or a block inside one; `inlined_at` says where the
/// function was inlined (in the caller's scope), so the chain of them is a call stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scope {
    /// Index in [`DebugInfo::functions`] of the function this scope is in.
    pub function: Option<u32>,
    /// The enclosing scope, for name lookup (a block's function, ...).
    pub parent: Option<u32>,
}

/// Where an instruction came from: its position, and its scope with the inlining chain.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Origin {
    /// The source position, when the instruction has one.
    pub pos: Option<SourcePos>,
    /// Index in [`DebugInfo::scopes`].
    pub scope: Option<u32>,
    /// Index in [`DebugInfo::inlined`]: the call site this code was inlined at.
    pub inlined_at: Option<u32>,
}

/// A call site that code was inlined at: the caller's position and scope, and the call site
/// the caller itself was inlined at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InlinedAt {
    /// The line of the call in the caller.
    pub line: u32,
    /// The file of the caller's scope, when known.
    pub file: Option<u32>,
    /// Index in [`DebugInfo::scopes`] of the caller's scope.
    pub scope: Option<u32>,
    /// Index in [`DebugInfo::inlined`] of the call site the caller was inlined at.
    pub parent: Option<u32>,
}

/// Where a source variable's value lives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum VarHome {
    /// In memory, at the pointer value of SPIR-V id `pointer` (`DebugDeclare`, or an
    /// `OpVariable` named by `OpName`).
    Memory {
        /// The SPIR-V id of the pointer.
        pointer: u32,
    },
    /// In SSA values: from instruction `at` (module index) on, the variable (or its component
    /// at `indexes`) is the value of SPIR-V id `value` (`DebugValue`).
    Values {
        /// Each value the variable takes, in module order.
        values: Vec<VarValue>,
    },
}

/// One `DebugValue`: from an instruction on, a variable (or one of its components) is an SSA value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VarValue {
    /// The module index of the instruction from which it holds.
    pub at: u32,
    /// The SPIR-V id of the value.
    pub value: u32,
    /// The component of the variable it is (empty: the whole variable).
    pub indexes: Vec<u32>,
}

/// A source variable: its name and type as the source writes them, its scope and home.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceVariable {
    /// The variable's source name.
    pub name: String,
    /// Its type as the source language writes it (`uvec3`, `vec4<f32>`), when known.
    pub type_name: Option<String>,
    /// Index in [`DebugInfo::scopes`]; `None` for globals.
    pub scope: Option<u32>,
    /// Where it is declared, when said.
    pub pos: Option<SourcePos>,
    /// Where its value lives.
    pub home: VarHome,
}

/// Everything the module says about its sources.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DebugInfo {
    /// The source files, in the order the module names them.
    pub files: Vec<SourceFile>,
    /// The source functions.
    pub functions: Vec<SourceFunction>,
    /// Lexical scopes (function bodies and blocks).
    pub scopes: Vec<Scope>,
    /// Inlined call sites.
    pub inlined: Vec<InlinedAt>,
    /// Source variables, globals and locals.
    pub variables: Vec<SourceVariable>,
    /// Distinct origins; `origin_of[k]` indexes this for module instruction `k`.
    pub origins: Vec<Origin>,
    /// For each module instruction, its origin (`u32::MAX`: none).
    pub origin_of: Vec<u32>,
}

/// A frame of a source call stack: the function and the position in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Frame {
    /// The function's source name, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The file's name, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line.
    pub line: u32,
    /// 1-based; absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

impl DebugInfo {
    /// Whether any instruction has a source position.
    pub fn has_lines(&self) -> bool {
        self.origins.iter().any(|o| o.pos.is_some())
    }

    /// Where module instruction `k` came from.
    pub fn origin(&self, k: u32) -> Option<&Origin> {
        let i = *self.origin_of.get(k as usize)?;
        self.origins.get(i as usize)
    }

    /// The source position of module instruction `k`.
    pub fn pos(&self, k: u32) -> Option<SourcePos> {
        self.origin(k)?.pos
    }

    /// The name of file `f`.
    pub fn file_name(&self, f: u32) -> Option<&str> {
        self.files.get(f as usize).map(|f| f.name.as_str())
    }

    /// The function a scope is in.
    pub fn function_of_scope(&self, scope: Option<u32>) -> Option<&SourceFunction> {
        let s = self.scopes.get(scope? as usize)?;
        self.functions.get(s.function? as usize)
    }

    /// The source call stack at module instruction `k`, innermost first: the instruction's own
    /// position and function, then each call site it was inlined at.
    pub fn frames(&self, k: u32) -> Vec<Frame> {
        let Some(o) = self.origin(k) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let name = |scope| self.function_of_scope(scope).map(|f| f.name.clone());
        if let Some(p) = o.pos {
            out.push(Frame {
                function: name(o.scope),
                file: self.file_name(p.file).map(str::to_owned),
                line: p.line,
                column: (p.column > 0).then_some(p.column),
            });
        }
        let mut at = o.inlined_at;
        let mut guard = 0;
        while let Some(i) = at {
            let Some(site) = self.inlined.get(i as usize) else {
                break;
            };
            out.push(Frame {
                function: name(site.scope),
                file: site.file.and_then(|f| self.file_name(f)).map(str::to_owned),
                line: site.line,
                column: None,
            });
            at = site.parent;
            guard += 1;
            if guard > 64 {
                break;
            }
        }
        out
    }

    /// The file named `name` (as the module writes it, or ending in `/name`).
    pub fn file_index(&self, name: &str) -> Option<u32> {
        self.files
            .iter()
            .position(|f| f.name == name)
            .or_else(|| {
                self.files.iter().position(|f| {
                    f.name.ends_with(&format!("/{name}")) || name.ends_with(&format!("/{}", f.name))
                })
            })
            .map(|i| i as u32)
    }

    /// The lines of `file` that have code, in order.
    pub fn lines_with_code(&self, file: u32) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .origins
            .iter()
            .filter_map(|o| o.pos)
            .filter(|p| p.file == file)
            .map(|p| p.line)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether `scope` is `inner` or encloses it.
    pub fn encloses(&self, scope: u32, inner: Option<u32>) -> bool {
        let mut s = inner;
        let mut guard = 0;
        while let Some(x) = s {
            if x == scope {
                return true;
            }
            s = self.scopes.get(x as usize).and_then(|sc| sc.parent);
            guard += 1;
            if guard > 256 {
                break;
            }
        }
        false
    }
}
