//! Problems met while rendering, as data: an intent a platform cannot express (DSCP trust where
//! there is none, more lossless priorities than the ASIC has, an ETS share the platform rounds),
//! a value converted into the platform's unit, a device rocelab cannot configure. Each names the
//! device (and the port where there is one) and the reason. Errors leave the device's file out;
//! warnings come with the file.

pub use rocelab_model::Severity;
use serde::Serialize;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub severity: Severity,
    pub device: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    pub message: String,
}

impl Finding {
    pub fn warning(device: &str, port: Option<&str>, message: String) -> Finding {
        Finding { severity: Severity::Warning, device: device.into(), port: port.map(Into::into), message }
    }
    pub fn error(device: &str, port: Option<&str>, message: String) -> Finding {
        Finding { severity: Severity::Error, device: device.into(), port: port.map(Into::into), message }
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = self.severity.as_str();
        match &self.port {
            Some(p) => write!(f, "{sev}: {}:{p}: {}", self.device, self.message),
            None => write!(f, "{sev}: {}: {}", self.device, self.message),
        }
    }
}

pub type Findings = Vec<Finding>;
