//! Reads the debug information compilers emit, from the verbatim instruction stream:
//! `OpString`/`OpSource`/`OpSourceContinued`/`OpLine`/`OpNoLine` (glslang `-g`, DXC `-Zi`, naga)
//! and `NonSemantic.Shader.DebugInfo.100` (glslang `-gVS`, DXC
//! `-fspv-debug=vulkan-with-source`, Slang): sources, lines, scopes, inlining, variables.
//!
//! Debug information never makes a module fail to load: what cannot be understood is skipped.

use super::{
    DebugInfo, InlinedAt, Origin, Scope, SourceFile, SourceFunction, SourcePos, SourceVariable,
    VarHome, VarValue,
};
use crate::module::{literal_string, SpirvModule};
use rspirv::spirv::{NonsemanticShaderDebuginfo100Op as D, Op, SourceLanguage};
use std::collections::HashMap;

/// A variable found before its home is known.
struct PendingVar {
    var: SourceVariable,
    type_id: Option<u32>,
}

#[derive(Default)]
struct Reader {
    info: DebugInfo,
    strings: HashMap<u32, String>,
    constants: HashMap<u32, u32>,
    names: HashMap<u32, String>,
    /// The set ids of NonSemantic.Shader.DebugInfo.100.
    debug_sets: Vec<u32>,
    files_by_name: HashMap<String, u32>,
    /// DebugSource id -> file index.
    sources: HashMap<u32, u32>,
    /// The file a `DebugSourceContinued` continues.
    last_debug_source: Option<u32>,
    /// The file an `OpSourceContinued` continues.
    last_op_source: Option<u32>,
    /// DebugFunction / DebugLexicalBlock / DebugCompilationUnit id -> scope index.
    scope_ids: HashMap<u32, u32>,
    /// Scope parents by id, resolved once every scope is known.
    scope_parent_ids: Vec<(u32, u32)>,
    /// DebugInlinedAt id -> index; parents resolved later.
    inlined_ids: HashMap<u32, u32>,
    inlined_parent_ids: Vec<(u32, u32)>,
    inlined_scope_ids: Vec<(u32, u32)>,
    /// DebugLocalVariable / DebugGlobalVariable id -> pending index.
    var_ids: HashMap<u32, usize>,
    pending: Vec<PendingVar>,
    /// Debug type id -> its source name.
    type_names: HashMap<u32, String>,
    /// OpFunction id -> scope index.
    function_scopes: HashMap<u32, u32>,
    origin_index: HashMap<Origin, u32>,
    language: Option<String>,
}

/// The debug information of `raw`, or `None` when it has none worth showing.
pub fn read(raw: &SpirvModule) -> Option<DebugInfo> {
    let mut r = Reader::default();
    r.info.origin_of = vec![u32::MAX; raw.len()];
    // Module-level facts first (strings, constants, names, sources), then the walk.
    for inst in raw.instructions() {
        r.module_fact(inst);
    }
    r.walk(raw);
    r.resolve();
    let info = r.info;
    let has_text = info.files.iter().any(|f| f.text.is_some());
    (info.has_lines() || has_text).then_some(info)
}

fn op_of(inst: &[u32]) -> u32 {
    inst[0] & 0xffff
}

impl Reader {
    fn module_fact(&mut self, inst: &[u32]) {
        let op = op_of(inst);
        match Op::from_u32(op) {
            Some(Op::String) if inst.len() >= 3 => {
                self.strings.insert(inst[1], literal_string(&inst[2..]).0);
            }
            Some(Op::Constant) if inst.len() == 4 => {
                self.constants.insert(inst[2], inst[3]);
            }
            Some(Op::Name) if inst.len() >= 3 => {
                let (name, _) = literal_string(&inst[2..]);
                if !name.is_empty() {
                    self.names.insert(inst[1], name);
                }
            }
            Some(Op::ExtInstImport)
                if inst.len() >= 3
                    && literal_string(&inst[2..]).0 == "NonSemantic.Shader.DebugInfo.100" =>
            {
                self.debug_sets.push(inst[1]);
            }
            Some(Op::Source) if inst.len() >= 3 => {
                let lang = SourceLanguage::from_u32(inst[1]).map(|l| language_name(l).to_owned());
                if self.language.is_none() {
                    self.language.clone_from(&lang);
                }
                let file_name = inst
                    .get(3)
                    .and_then(|f| self.strings.get(f).cloned())
                    .unwrap_or_default();
                let text = (inst.len() > 4).then(|| literal_string(&inst[4..]).0);
                // `OpSource GLSL 450` alone names no file and holds no text.
                if file_name.is_empty() && text.is_none() {
                    self.last_op_source = None;
                    return;
                }
                let f = self.file(&file_name, text, lang);
                self.last_op_source = Some(f);
            }
            Some(Op::SourceContinued) if inst.len() >= 2 => {
                if let Some(f) = self.last_op_source {
                    let more = literal_string(&inst[1..]).0;
                    let file = &mut self.info.files[f as usize];
                    file.text.get_or_insert_with(String::new).push_str(&more);
                }
            }
            _ => {}
        }
    }

    /// The file named `name` (created on first mention); a text, when given, fills it.
    fn file(&mut self, name: &str, text: Option<String>, language: Option<String>) -> u32 {
        let f = *self
            .files_by_name
            .entry(name.to_owned())
            .or_insert_with(|| {
                self.info.files.push(SourceFile {
                    name: name.to_owned(),
                    text: None,
                    language: None,
                });
                (self.info.files.len() - 1) as u32
            });
        let file = &mut self.info.files[f as usize];
        if file.text.is_none() {
            file.text = text.filter(|t| !t.is_empty());
        }
        if file.language.is_none() {
            file.language = language.or_else(|| self.language.clone());
        }
        f
    }

    fn constant(&self, id: u32) -> Option<u32> {
        self.constants.get(&id).copied()
    }

    fn string(&self, id: u32) -> Option<String> {
        self.strings.get(&id).cloned()
    }

    fn walk(&mut self, raw: &SpirvModule) {
        let mut pos: Option<SourcePos> = None;
        let mut scope: Option<u32> = None;
        let mut inlined: Option<u32> = None;
        // The scope of the function being walked (from OpName when there is no DebugFunction).
        let mut function_scope: Option<u32> = None;
        let mut in_function = false;
        for (k, inst) in raw.instructions().enumerate() {
            let op = op_of(inst);
            match Op::from_u32(op) {
                Some(Op::Line) if inst.len() >= 4 => {
                    let name = self.string(inst[1]).unwrap_or_default();
                    let file = self.file(&name, None, None);
                    pos = Some(SourcePos {
                        file,
                        line: inst[2],
                        column: inst[3],
                    });
                    continue;
                }
                Some(Op::NoLine) => {
                    pos = None;
                    continue;
                }
                Some(Op::ExtInst) if inst.len() >= 5 && self.debug_sets.contains(&inst[3]) => {
                    self.debug_inst(k as u32, inst, &mut pos, &mut scope, &mut inlined);
                    continue;
                }
                Some(Op::Function) if inst.len() >= 3 => {
                    in_function = true;
                    let id = inst[2];
                    let s = self.implicit_function_scope(id);
                    function_scope = Some(s);
                }
                Some(Op::FunctionParameter) if inst.len() >= 3 => {
                    if let (Some(name), Some(s)) =
                        (self.names.get(&inst[2]).cloned(), function_scope)
                    {
                        self.pending.push(PendingVar {
                            var: SourceVariable {
                                name,
                                type_name: None,
                                scope: Some(s),
                                pos,
                                home: VarHome::Values {
                                    values: vec![VarValue {
                                        at: k as u32,
                                        value: inst[2],
                                        indexes: Vec::new(),
                                    }],
                                },
                            },
                            type_id: None,
                        });
                    }
                }
                Some(Op::Variable) if inst.len() >= 4 => {
                    // OpName-named variables: the source variables of modules without
                    // DebugLocalVariable (glslang -g, naga); globals have no scope.
                    if let Some(name) = self.names.get(&inst[2]).cloned() {
                        let s = if in_function { function_scope } else { None };
                        self.pending.push(PendingVar {
                            var: SourceVariable {
                                name,
                                type_name: None,
                                scope: s,
                                pos,
                                home: VarHome::Memory { pointer: inst[2] },
                            },
                            type_id: None,
                        });
                    }
                }
                Some(Op::FunctionEnd) => {
                    in_function = false;
                    function_scope = None;
                }
                _ => {}
            }
            if in_function {
                let origin = Origin {
                    pos,
                    scope: scope.or(function_scope),
                    inlined_at: inlined,
                };
                self.info.origin_of[k] = self.origin(origin);
            }
            // Line and scope information lasts to the end of its block.
            if is_terminator(op) || op == Op::FunctionEnd as u32 {
                pos = None;
                scope = None;
                inlined = None;
            }
        }
    }

    fn origin(&mut self, o: Origin) -> u32 {
        if let Some(i) = self.origin_index.get(&o) {
            return *i;
        }
        let i = self.info.origins.len() as u32;
        self.info.origins.push(o.clone());
        self.origin_index.insert(o, i);
        i
    }

    /// A scope for function `id`, named by OpName, until a DebugFunctionDefinition names it.
    fn implicit_function_scope(&mut self, id: u32) -> u32 {
        if let Some(s) = self.function_scopes.get(&id) {
            return *s;
        }
        let name = self
            .names
            .get(&id)
            .map_or_else(|| format!("%{id}"), |n| demangle(n));
        self.info.functions.push(SourceFunction {
            name,
            pos: None,
            file: None,
        });
        let f = (self.info.functions.len() - 1) as u32;
        self.info.scopes.push(Scope {
            function: Some(f),
            parent: None,
        });
        let s = (self.info.scopes.len() - 1) as u32;
        self.function_scopes.insert(id, s);
        s
    }

    fn new_scope(&mut self, id: u32, function: Option<u32>, parent_id: Option<u32>) -> u32 {
        self.info.scopes.push(Scope {
            function,
            parent: None,
        });
        let s = (self.info.scopes.len() - 1) as u32;
        self.scope_ids.insert(id, s);
        if let Some(p) = parent_id {
            self.scope_parent_ids.push((s, p));
        }
        s
    }

    fn debug_pos(&mut self, source: u32, line: u32, column: u32) -> Option<SourcePos> {
        let file = *self.sources.get(&source)?;
        let line = self.constant(line)?;
        let column = self.constant(column).unwrap_or(0);
        (line > 0).then_some(SourcePos { file, line, column })
    }

    #[expect(
        clippy::too_many_lines,
        reason = "one arm per debug instruction reads best as one match"
    )]
    fn debug_inst(
        &mut self,
        k: u32,
        inst: &[u32],
        pos: &mut Option<SourcePos>,
        scope: &mut Option<u32>,
        inlined: &mut Option<u32>,
    ) {
        let id = inst[2];
        let ops = &inst[5..];
        let op = |i: usize| ops.get(i).copied();
        let Some(which) = D::from_u32(inst[4]) else {
            return;
        };
        match which {
            D::DebugSource => {
                let name = op(0).and_then(|s| self.string(s)).unwrap_or_default();
                let text = op(1).and_then(|s| self.string(s));
                let f = self.file(&name, text, None);
                self.sources.insert(id, f);
                self.last_debug_source = Some(f);
            }
            D::DebugSourceContinued => {
                if let (Some(f), Some(more)) =
                    (self.last_debug_source, op(0).and_then(|s| self.string(s)))
                {
                    let file = &mut self.info.files[f as usize];
                    file.text.get_or_insert_with(String::new).push_str(&more);
                }
            }
            D::DebugCompilationUnit => {
                // Version, DWARF version, Source, Language.
                if let Some(lang) = op(3)
                    .and_then(|l| self.constant(l))
                    .and_then(SourceLanguage::from_u32)
                {
                    let name = language_name(lang).to_owned();
                    if let Some(f) = op(2).and_then(|s| self.sources.get(&s).copied()) {
                        self.info.files[f as usize]
                            .language
                            .get_or_insert(name.clone());
                    }
                    self.language.get_or_insert(name);
                }
                self.new_scope(id, None, None);
            }
            D::DebugFunction => {
                // Name, Type, Source, Line, Column, Parent, Linkage Name, Flags, ...
                let name = op(0).and_then(|s| self.string(s)).unwrap_or_default();
                let p = match (op(2), op(3), op(4)) {
                    (Some(s), Some(l), Some(c)) => self.debug_pos(s, l, c),
                    _ => None,
                };
                let file = op(2).and_then(|s| self.sources.get(&s).copied());
                self.info.functions.push(SourceFunction {
                    name: demangle(&name),
                    pos: p,
                    file,
                });
                let f = (self.info.functions.len() - 1) as u32;
                self.new_scope(id, Some(f), op(5));
            }
            D::DebugLexicalBlock => {
                // Source, Line, Column, Parent, [Name]
                self.new_scope(id, None, op(3));
            }
            D::DebugFunctionDefinition => {
                // Function (DebugFunction), Definition (OpFunction): the OpFunction's
                // instructions belong to the DebugFunction's scope.
                if let (Some(df), Some(func)) = (op(0), op(1)) {
                    if let Some(s) = self.scope_ids.get(&df).copied() {
                        self.function_scopes.insert(func, s);
                        *scope = Some(s);
                    }
                }
            }
            D::DebugScope => {
                *scope = op(0).and_then(|s| self.scope_ids.get(&s).copied());
                *inlined = op(1).and_then(|i| self.inlined_ids.get(&i).copied());
            }
            D::DebugNoScope => {
                *scope = None;
                *inlined = None;
            }
            D::DebugInlinedAt => {
                // Line, Scope, [Inlined]
                let line = op(0).and_then(|l| self.constant(l)).unwrap_or(0);
                self.info.inlined.push(InlinedAt {
                    line,
                    file: None,
                    scope: None,
                    parent: None,
                });
                let i = (self.info.inlined.len() - 1) as u32;
                self.inlined_ids.insert(id, i);
                if let Some(s) = op(1) {
                    self.inlined_scope_ids.push((i, s));
                }
                if let Some(p) = op(2) {
                    self.inlined_parent_ids.push((i, p));
                }
            }
            D::DebugLine => {
                if let (Some(s), Some(l), Some(c)) = (op(0), op(1), op(3)) {
                    *pos = self.debug_pos(s, l, c);
                }
            }
            D::DebugNoLine => *pos = None,
            D::DebugTypeBasic => {
                if let Some(n) = op(0).and_then(|s| self.string(s)) {
                    self.type_names.insert(id, n);
                }
            }
            D::DebugTypeVector => {
                let base = op(0).and_then(|t| self.type_names.get(&t).cloned());
                let n = op(1).and_then(|c| self.constant(c)).or(op(1)).unwrap_or(0);
                if let Some(b) = base {
                    let name = vector_name(&b, n, self.language.as_deref());
                    self.type_names.insert(id, name);
                }
            }
            D::DebugTypeMatrix => {
                let col = op(0).and_then(|t| self.type_names.get(&t).cloned());
                let n = op(1).and_then(|c| self.constant(c)).unwrap_or(0);
                if let Some(c) = col {
                    self.type_names.insert(id, format!("{c}x{n}"));
                }
            }
            D::DebugTypeArray => {
                let base = op(0).and_then(|t| self.type_names.get(&t).cloned());
                if let Some(b) = base {
                    let dims: Vec<String> = ops[1..]
                        .iter()
                        .map(|c| match self.constant(*c) {
                            Some(0) | None => String::new(),
                            Some(n) => n.to_string(),
                        })
                        .collect();
                    let mut s = b;
                    for d in dims {
                        s.push_str(&format!("[{d}]"));
                    }
                    self.type_names.insert(id, s);
                }
            }
            D::DebugTypeComposite | D::DebugTypedef => {
                if let Some(n) = op(0).and_then(|s| self.string(s)) {
                    self.type_names.insert(id, n);
                }
            }
            D::DebugTypePointer | D::DebugTypeQualifier => {
                if let Some(b) = op(0).and_then(|t| self.type_names.get(&t).cloned()) {
                    self.type_names.insert(id, b);
                }
            }
            D::DebugLocalVariable | D::DebugGlobalVariable => {
                // Name, Type, Source, Line, Column, Parent, ...
                let name = op(0).and_then(|s| self.string(s)).unwrap_or_default();
                let p = match (op(2), op(3), op(4)) {
                    (Some(s), Some(l), Some(c)) => self.debug_pos(s, l, c),
                    _ => None,
                };
                let parent = op(5).and_then(|s| self.scope_ids.get(&s).copied());
                let global = which == D::DebugGlobalVariable;
                // A global's Variable operand (index 7) is its OpVariable.
                let home = match op(7).filter(|_| global) {
                    Some(v) => VarHome::Memory { pointer: v },
                    None => VarHome::Values { values: Vec::new() },
                };
                self.var_ids.insert(id, self.pending.len());
                self.pending.push(PendingVar {
                    var: SourceVariable {
                        name,
                        type_name: None,
                        scope: if global { None } else { parent },
                        pos: p,
                        home,
                    },
                    type_id: op(1),
                });
            }
            D::DebugDeclare => {
                // Local Variable, Variable, Expression, Indexes...
                if let (Some(v), Some(ptr)) = (op(0), op(1)) {
                    if let Some(&i) = self.var_ids.get(&v) {
                        self.pending[i].var.home = VarHome::Memory { pointer: ptr };
                    }
                }
            }
            D::DebugValue => {
                // Local Variable, Value, Expression, Indexes...
                if let (Some(v), Some(value)) = (op(0), op(1)) {
                    if let Some(&i) = self.var_ids.get(&v) {
                        let indexes: Vec<u32> = ops[3.min(ops.len())..]
                            .iter()
                            .map(|x| self.constant(*x).unwrap_or(*x))
                            .collect();
                        let entry = VarValue {
                            at: k,
                            value,
                            indexes,
                        };
                        match &mut self.pending[i].var.home {
                            VarHome::Values { values } => values.push(entry),
                            home @ VarHome::Memory { .. } => {
                                *home = VarHome::Values {
                                    values: vec![entry],
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn resolve(&mut self) {
        for (s, p) in std::mem::take(&mut self.scope_parent_ids) {
            let parent = self.scope_ids.get(&p).copied();
            if let Some(sc) = self.info.scopes.get_mut(s as usize) {
                sc.parent = parent;
            }
        }
        // A lexical block's function is its nearest enclosing function's.
        for s in 0..self.info.scopes.len() {
            if self.info.scopes[s].function.is_none() {
                let mut p = self.info.scopes[s].parent;
                let mut guard = 0;
                while let Some(x) = p {
                    if let Some(f) = self.info.scopes[x as usize].function {
                        self.info.scopes[s].function = Some(f);
                        break;
                    }
                    p = self.info.scopes[x as usize].parent;
                    guard += 1;
                    if guard > 256 {
                        break;
                    }
                }
            }
        }
        for (i, p) in std::mem::take(&mut self.inlined_parent_ids) {
            let parent = self.inlined_ids.get(&p).copied().filter(|x| *x != i);
            self.info.inlined[i as usize].parent = parent;
        }
        for (i, s) in std::mem::take(&mut self.inlined_scope_ids) {
            let scope = self.scope_ids.get(&s).copied();
            self.info.inlined[i as usize].scope = scope;
            let file = scope
                .and_then(|sc| self.info.scopes[sc as usize].function)
                .and_then(|f| self.info.functions[f as usize].file);
            self.info.inlined[i as usize].file = file;
        }
        // Variables: debug-declared ones first; OpName-named ones only where no debug
        // variable already lives in the same memory.
        let declared: Vec<u32> = self
            .pending
            .iter()
            .filter(|p| p.type_id.is_some())
            .filter_map(|p| match p.var.home {
                VarHome::Memory { pointer } => Some(pointer),
                VarHome::Values { .. } => None,
            })
            .collect();
        let has_debug_vars = self.pending.iter().any(|p| p.type_id.is_some());
        for p in std::mem::take(&mut self.pending) {
            let from_debug = p.type_id.is_some();
            if !from_debug {
                if has_debug_vars {
                    continue;
                }
                if let VarHome::Memory { pointer } = p.var.home {
                    if declared.contains(&pointer) {
                        continue;
                    }
                }
            }
            let mut v = p.var;
            v.type_name = p.type_id.and_then(|t| self.type_names.get(&t).cloned());
            if matches!(&v.home, VarHome::Values { values } if values.is_empty()) {
                continue;
            }
            self.info.variables.push(v);
        }
    }
}

fn is_terminator(op: u32) -> bool {
    matches!(
        Op::from_u32(op),
        Some(
            Op::Branch
                | Op::BranchConditional
                | Op::Switch
                | Op::Return
                | Op::ReturnValue
                | Op::Kill
                | Op::Unreachable
                | Op::TerminateInvocation
        )
    )
}

fn language_name(l: SourceLanguage) -> &'static str {
    match l {
        SourceLanguage::GLSL | SourceLanguage::ESSL => "GLSL",
        SourceLanguage::HLSL => "HLSL",
        SourceLanguage::WGSL => "WGSL",
        SourceLanguage::Slang => "Slang",
        SourceLanguage::OpenCL_C | SourceLanguage::OpenCL_CPP => "OpenCL",
        _ => "source",
    }
}

/// A function name as the source writes it: glslang mangles `scale(u1;`.
fn demangle(name: &str) -> String {
    name.split('(').next().unwrap_or(name).to_owned()
}

/// A vector type's name in the source language's spelling.
fn vector_name(base: &str, n: u32, language: Option<&str>) -> String {
    match language {
        Some("GLSL") => {
            let prefix = match base {
                "float" => "",
                "uint" => "u",
                "int" => "i",
                "bool" => "b",
                "double" => "d",
                "float16_t" | "half" => "f16",
                _ => return format!("{base}{n}"),
            };
            format!("{prefix}vec{n}")
        }
        Some("WGSL") => format!("vec{n}<{base}>"),
        _ => format!("{base}{n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_sources_write_them() {
        assert_eq!(demangle("scale(u1;"), "scale");
        assert_eq!(vector_name("uint", 3, Some("GLSL")), "uvec3");
        assert_eq!(vector_name("f32", 4, Some("WGSL")), "vec4<f32>");
        assert_eq!(vector_name("float", 2, Some("HLSL")), "float2");
    }
}
