/**
 * Lacuna's engine: the item API ({@code dev.lacuna}), the byte-level store ({@code dev.lacuna.kv}) and the
 * SPI for index kinds ({@code dev.lacuna.index}). The item engine, the expression language, the codecs and
 * the LSM behind them are not exported.
 */
module dev.lacuna.core {
    requires transitive dev.lacuna.wal;
    requires org.lz4.java;

    exports dev.lacuna;
    exports dev.lacuna.kv;
    exports dev.lacuna.index;

    uses dev.lacuna.index.IndexKind;
}
