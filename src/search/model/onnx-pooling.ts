/**
 * Mean pooling inside an ONNX graph. fastembed takes position 0 of `last_hidden_state` (CLS
 * pooling): right for BGE, wrong for all-MiniLM-L6-v2, trained with the masked mean. The encoder's
 * output is renamed `token_embeddings` and the masked mean, broadcast to every position, becomes
 * `last_hidden_state` (lorekeeper-static-384's layout), so every CLS reader sees the mean. Pure.
 */
import { onnx } from "onnx-proto";

const POOLED_PRODUCER = "lorekeeper-mean-pooling";
const OUT = "last_hidden_state";
const TOKENS = "token_embeddings";
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;
const INT = onnx.AttributeProto.AttributeType.INT;

function bytes(a: Float32Array | BigInt64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function node(
  opType: string,
  input: string[],
  output: string[],
  attribute: onnx.IAttributeProto[] = [],
): onnx.INodeProto {
  return { opType, input, output, name: `lk_pool_${output[0]}`, attribute };
}

/** Throws without a `last_hidden_state` output or `attention_mask` input; a pooled graph comes back as is. */
export function withMeanPooling(model: Uint8Array): Uint8Array {
  const m = onnx.ModelProto.decode(model);
  const g = m.graph;
  if (!g) throw new Error("the ONNX file has no graph");
  if ((g.node ?? []).some((n) => n.name === `lk_pool_${OUT}`)) return model;
  const out = (g.output ?? []).find((o) => o.name === OUT);
  if (!out)
    throw new Error(
      `the ONNX graph has no ${OUT} output (outputs: ${(g.output ?? []).map((o) => o.name).join(", ") || "none"})`,
    );
  if (!(g.input ?? []).some((i) => i.name === "attention_mask"))
    throw new Error("the ONNX graph has no attention_mask input");
  if ((g.node ?? []).some((n) => (n.output ?? []).includes(TOKENS) || (n.input ?? []).includes(TOKENS))) {
    throw new Error(`the ONNX graph already uses the name ${TOKENS}`);
  }
  for (const n of g.node ?? []) {
    n.output = (n.output ?? []).map((o) => (o === OUT ? TOKENS : o));
    n.input = (n.input ?? []).map((i) => (i === OUT ? TOKENS : i));
  }
  const opset = (m.opsetImport ?? []).find((o) => !o.domain || o.domain === "ai.onnx");
  const version = Number(opset?.version ?? 0);
  if (version < 13) throw new Error(`the ONNX graph uses opset ${version}; mean pooling needs opset 13 or newer`);
  g.initializer = [
    ...(g.initializer ?? []),
    { name: "lk_pool_axis1", dataType: INT64, dims: [1], rawData: bytes(new BigInt64Array([1n])) },
    { name: "lk_pool_axis2", dataType: INT64, dims: [1], rawData: bytes(new BigInt64Array([2n])) },
    { name: "lk_pool_eps", dataType: FLOAT, dims: [1], rawData: bytes(new Float32Array([1e-9])) },
  ];
  const keep = [{ name: "keepdims", type: INT, i: 1 }];
  g.node = [
    ...(g.node ?? []),
    node("Cast", ["attention_mask"], ["lk_pool_mask"], [{ name: "to", type: INT, i: FLOAT }]),
    node("Unsqueeze", ["lk_pool_mask", "lk_pool_axis2"], ["lk_pool_mask3"]),
    node("Mul", [TOKENS, "lk_pool_mask3"], ["lk_pool_weighted"]),
    node("ReduceSum", ["lk_pool_weighted", "lk_pool_axis1"], ["lk_pool_sum"], keep),
    node("ReduceSum", ["lk_pool_mask3", "lk_pool_axis1"], ["lk_pool_count"], keep),
    node("Max", ["lk_pool_count", "lk_pool_eps"], ["lk_pool_count_safe"]),
    node("Div", ["lk_pool_sum", "lk_pool_count_safe"], ["lk_pool_mean"]),
    node("Shape", [TOKENS], ["lk_pool_shape"]),
    node("Expand", ["lk_pool_mean", "lk_pool_shape"], [OUT]),
  ];
  m.producerName = m.producerName ? `${m.producerName}+${POOLED_PRODUCER}` : POOLED_PRODUCER;
  return onnx.ModelProto.encode(m).finish();
}
