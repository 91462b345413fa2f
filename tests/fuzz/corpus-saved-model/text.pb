saved_model_schema_version: 1
meta_graphs {
}
