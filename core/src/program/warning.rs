//! What loading accepted but warns about: the program carries these.

use std::fmt;

/// What a warning is about: something accepted that is probably not what was meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WarningCode {
    /// A capability Lanescope does not simulate, declared but not needed by anything.
    UnusedCapability,
    /// An extended instruction set Lanescope does not implement, imported but not used.
    UnusedExtInstSet,
    /// A specialization-constant override for a SpecId the module does not have (Vulkan
    /// ignores it; optimizers often remove unused specialization constants).
    UnknownSpecId,
    /// A buffer bound at a binding the shader does not declare.
    UnusedBinding,
    /// Only some workgroups run, and the shader has atomics on buffer memory: what they see can
    /// depend on the workgroups left out.
    PartialDispatchAtomics,
    /// Specialization constants sharing one SpecId with different defaults, none specialized:
    /// each keeps its own default.
    SharedSpecId,
}

impl WarningCode {
    /// The stable kebab-case name (as in `--json` output).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UnusedCapability => "unused-capability",
            Self::UnusedExtInstSet => "unused-ext-inst-set",
            Self::UnknownSpecId => "unknown-spec-id",
            Self::UnusedBinding => "unused-binding",
            Self::PartialDispatchAtomics => "partial-dispatch-atomics",
            Self::SharedSpecId => "shared-spec-id",
        }
    }
}

impl fmt::Display for WarningCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A warning: the module or setting is accepted, but something in it is ignored.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// What it is about (a stable code).
    pub code: WarningCode,
    /// The details for people: what was found, where, and what Lanescope does about it.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "warning [{}]: {}", self.code, self.message)
    }
}
