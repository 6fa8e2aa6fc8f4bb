//! Rust values to Python objects: JSON values (findings, diagnostics) to dicts and lists, and the
//! report's tables to columns (`{column: [values]}`), which `pandas.DataFrame` takes as they are.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use rocelab_model::Diagnostics;
use rocelab_report::{Cell, Table};
use serde_json::Value;

/// A JSON value as the object `json.loads` would give for its text.
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i)) => i.into_pyobject(py)?.into_any(),
            (None, None) => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for x in items {
                list.append(to_py(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, x) in map {
                dict.set_item(k, to_py(py, x)?)?;
            }
            dict.into_any()
        }
    })
}

/// Diagnostics as the dicts of `rocelab validate --format json` (`line` and `column` `None`
/// where the problem has no position), with `expected` and `suggestion` always present.
pub fn diagnostics<'py>(py: Python<'py>, d: &Diagnostics) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for x in &d.0 {
        let value = serde_json::to_value(x).map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        let dict = to_py(py, &value)?.cast_into::<PyDict>()?;
        for key in ["expected", "suggestion"] {
            if !dict.contains(key)? {
                dict.set_item(key, py.None())?;
            }
        }
        list.append(dict)?;
    }
    Ok(list)
}

/// One cell: text as `str`, counts as `int`, figures as `float` at full precision (as the CSV
/// files have them), an empty cell as `None`.
fn cell<'py>(py: Python<'py>, c: &Cell) -> PyResult<Bound<'py, PyAny>> {
    Ok(match c {
        Cell::Text(s) => PyString::new(py, s).into_any(),
        Cell::Int(i) => i.into_pyobject(py)?.into_any(),
        Cell::Num(v, _) => v.into_pyobject(py)?.into_any(),
        Cell::Empty => py.None().into_bound(py),
    })
}

/// A table as `{column: [values]}` in the table's column order.
pub fn columns<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (i, name) in t.columns.iter().enumerate() {
        let list = PyList::empty(py);
        for row in &t.rows {
            list.append(cell(py, row.get(i).unwrap_or(&Cell::Empty))?)?;
        }
        dict.set_item(name, list)?;
    }
    Ok(dict)
}
