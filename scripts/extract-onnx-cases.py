#!/usr/bin/env python3
"""Extracts ONNX's backend node test cases for the attention-related operators into
tests/fixtures/onnx/cases.json (issue 22, item 9).

The cases are the ones the ONNX repository committed under onnx/backend/test/data/node/
(each a model.onnx holding one node, plus test_data_set_0/{input,output}_N.pb); the
repository removed those files in commit a8f77b5b9 (August 2026), so this reads them from
that commit's parent. The '_expanded' variants (the same cases as graphs of smaller
operators) are skipped: their inputs and outputs are the same.

Usage (dev-time only; CI reads the committed JSON):
  apt-get install python3-onnx          # Debian's 1.12 parses the protobufs
  git -C <onnx checkout> archive a8f77b5b9^ onnx/backend/test/data/node | tar -x -C /tmp/onnx-node
  /usr/bin/python3 scripts/extract-onnx-cases.py /tmp/onnx-node/onnx/backend/test/data/node

Output: { source, cases: [{ name, op, opset, attributes, inputs: [...], outputs: [...] }] }
where each tensor is { name, dtype, shape, data } (data: base64 of the raw little-endian
bytes; dtype one of float32, float16, bool, int64); an input the node leaves out (an empty
name) and an output the test does not check are null.
"""
import base64
import json
import os
import sys

import onnx
from onnx import numpy_helper

PREFIXES = ('test_attention', 'test_rotary_embedding', 'test_layer_normalization',
            'test_rms_normalization', 'test_softmax', 'test_logsoftmax')
DTYPES = {'float32': 'float32', 'float16': 'float16', 'bool': 'bool', 'int64': 'int64'}


def tensor_json(name, array):
    dtype = DTYPES[str(array.dtype)]
    return {
        'name': name,
        'dtype': dtype,
        'shape': list(array.shape),
        'data': base64.b64encode(array.astype(array.dtype.newbyteorder('<')).tobytes()).decode(),
    }


def attribute_value(attribute):
    value = onnx.helper.get_attribute_value(attribute)
    return value.decode() if isinstance(value, bytes) else value


def read_case(folder):
    model = onnx.load(os.path.join(folder, 'model.onnx'))
    (node,) = model.graph.node
    opset = max(o.version for o in model.opset_import if o.domain in ('', 'ai.onnx'))
    data = os.path.join(folder, 'test_data_set_0')
    def tensors(names, graph_names, kind):
        # The node's inputs (or outputs) in order: None for one it leaves out or the test omits.
        out = []
        for name in names:
            if name == '' or name not in graph_names:
                out.append(None)
                continue
            tensor = onnx.TensorProto()
            with open(os.path.join(data, f'{kind}_{graph_names.index(name)}.pb'), 'rb') as f:
                tensor.ParseFromString(f.read())
            out.append(tensor_json(name, numpy_helper.to_array(tensor)))
        return out
    inputs = tensors(node.input, [i.name for i in model.graph.input], 'input')
    outputs = tensors(node.output, [o.name for o in model.graph.output], 'output')
    return {
        'name': os.path.basename(folder),
        'op': node.op_type,
        'opset': opset,
        'attributes': {a.name: attribute_value(a) for a in node.attribute},
        'inputs': inputs,
        'outputs': outputs,
    }


def main(root, out):
    names = sorted(n for n in os.listdir(root)
                   if n.startswith(PREFIXES) and not n.endswith('_expanded')
                   and '_expanded_' not in n)
    cases = [read_case(os.path.join(root, n)) for n in names]
    document = {
        'source': 'github.com/onnx/onnx at a8f77b5b9^ (6be0677fc22e74563e6eb472f931513aefe5648d), '
                  'onnx/backend/test/data/node; Apache-2.0, Copyright (c) ONNX Project Contributors',
        'cases': cases,
    }
    with open(out, 'w') as f:
        json.dump(document, f, indent=None, separators=(',', ':'))
        f.write('\n')
    print(f'{len(cases)} cases -> {out}')


if __name__ == '__main__':
    here = os.path.dirname(os.path.abspath(__file__))
    main(sys.argv[1], os.path.join(here, '..', 'tests', 'fixtures', 'onnx', 'cases.json'))
