# .npz archives written byte by byte, for the command-line tests that read
# them (POSIX sh, no zip tool, no Python).  Source after lib.sh:
#   . "$(dirname "$0")/npz_lib.sh"
# npz_stored OUT NAME FILE [NAME FILE]...: a zip of stored (uncompressed)
# members NAME.npy holding the bytes of FILE, as np.savez writes them (less
# the ZIP64 extra field NumPy adds).

# le16 N, le32 N: N's 2 or 4 little-endian bytes on stdout
npz_byte() { printf "\\$(printf %o "$1")"; }
le16() { npz_byte $(($1 & 255)); npz_byte $((($1 >> 8) & 255)); }
le32() { le16 $(($1 & 65535)); le16 $((($1 >> 16) & 65535)); }

# npz_crc32 FILE: the zip CRC-32 of FILE, in decimal
npz_crc32() {
    od -An -v -tu1 "$1" | tr -s ' ' '\n' | grep . | {
        c=4294967295
        while read -r b; do
            c=$((c ^ b))
            i=0
            while [ $i -lt 8 ]; do
                if [ $((c & 1)) -eq 1 ]; then c=$(((c >> 1) ^ 3988292384)); else c=$((c >> 1)); fi
                i=$((i + 1))
            done
        done
        echo $((c ^ 4294967295))
    }
}

npz_stored() {
    npz_out=$1
    shift
    : >"$npz_out"
    : >"$npz_out.cd"
    npz_n=0
    while [ $# -ge 2 ]; do
        npz_name="$1.npy"
        npz_size=$(wc -c <"$2" | tr -d ' ')
        npz_crc=$(npz_crc32 "$2")
        npz_at=$(wc -c <"$npz_out" | tr -d ' ')
        {
            le32 67324752; le16 20; le16 0; le16 0; le16 0; le16 33; le32 "$npz_crc"
            le32 "$npz_size"; le32 "$npz_size"; le16 ${#npz_name}; le16 0
            printf %s "$npz_name"
            cat "$2"
        } >>"$npz_out"
        {
            le32 33639248; le16 20; le16 20; le16 0; le16 0; le16 0; le16 33; le32 "$npz_crc"
            le32 "$npz_size"; le32 "$npz_size"; le16 ${#npz_name}; le16 0; le16 0; le16 0; le16 0
            le32 0; le32 "$npz_at"
            printf %s "$npz_name"
        } >>"$npz_out.cd"
        npz_n=$((npz_n + 1))
        shift 2
    done
    npz_cd_at=$(wc -c <"$npz_out" | tr -d ' ')
    npz_cd_size=$(wc -c <"$npz_out.cd" | tr -d ' ')
    cat "$npz_out.cd" >>"$npz_out"
    rm -f "$npz_out.cd"
    {
        le32 101010256; le16 0; le16 0; le16 $npz_n; le16 $npz_n; le32 "$npz_cd_size"
        le32 "$npz_cd_at"; le16 0
    } >>"$npz_out"
}
