"""librosa's changes under TF1-era audio programs, as tables
(tf1_train/port/librosa_rules.py reads them).

``POSITIONAL``: librosa 0.10 made most arguments keyword-only. 0.8 took them
by position (0.9 still did, with a FutureWarning); 0.10 raises TypeError.
Each row is a function's count of arguments still taken by position and
0.8.1's names for the ones after them, in order, so a positional call can be
rewritten with keywords. scripts/make_librosa_table.py writes the rows from
librosa 0.8.1's source and the installed librosa's signatures.

``DEFAULTS``: arguments whose default changed in 0.10, so a call that leaves
them out computes other numbers with no error: the padding of a centred
STFT's ends and the resampling filter, and what the functions that call
those pass on. ``REMOVED``: what 0.6 to 0.9 removed.
"""

from typing import Dict, Tuple

# fmt: off
# argument, librosa 0.8-0.9's default, 0.10's, what the change does to the numbers
REFLECT = ("pad_mode", "'reflect'", "'constant'",
           "a centred STFT now pads the signal's ends with zeros where it reflected them, "
           "so the first and last frames change")
KAISER = ("res_type", "'kaiser_best'", "'soxr_hq'",
          "resampling (load's: when the file's rate is not sr) now uses soxr's filter where it "
          "used resampy's, so every sample changes ('kaiser_best' needs the resampy package)")
KAISER_FAST = ("res_type", "'kaiser_fast'", "'soxr_hq'", KAISER[3].replace("best", "fast"))
FFT = ("res_type", "'fft'", "'soxr_hq'",
       "resampling now uses soxr's filter where it used scipy.signal.resample, so every sample "
       "changes")
COEF = ("coef", "0.95", "0.97", "the filter coefficient changed")
# the energies trim and split compare with top_db: no argument of theirs sets the padding
TRIM = ("", "", "",
        "its frame energies (feature.rms, centred) now pad the signal's ends with zeros where "
        "they reflected them, so the edge frames can fall below top_db and the cut move; no "
        "argument restores it: to keep 0.9's cut, compute librosa.feature.rms(y=y, "
        "frame_length=..., hop_length=..., pad_mode='reflect') and cut at top_db "
        "yourself")

# function -> its changed defaults. The pad_mode rows also reach the functions that pass
# their keyword arguments on to melspectrogram (mfcc, onset_strength).
DEFAULTS: Dict[str, Tuple[Tuple[str, str, str, str], ...]] = {
    **{f"librosa.{n}": (REFLECT,) for n in (
        "stft", "griffinlim", "cqt", "hybrid_cqt", "pseudo_cqt", "vqt", "iirt", "piptrack",
        "pyin", "yin", "reassigned_spectrogram")},
    **{f"librosa.feature.{n}": (REFLECT,) for n in (
        "melspectrogram", "mfcc", "chroma_stft", "poly_features", "rms", "spectral_bandwidth",
        "spectral_centroid", "spectral_contrast", "spectral_flatness", "spectral_rolloff")},
    "librosa.onset.onset_strength": (REFLECT,),
    "librosa.onset.onset_strength_multi": (REFLECT,),
    "librosa.griffinlim_cqt": (REFLECT, KAISER_FAST),
    "librosa.load": (KAISER,),
    "librosa.resample": (KAISER,),
    "librosa.effects.pitch_shift": (KAISER,),
    "librosa.icqt": (FFT,),
    "librosa.effects.deemphasis": (COEF,),
    "librosa.effects.trim": (TRIM,),
    "librosa.effects.split": (TRIM,),
}

# gone: (what does the same now, the release that removed it)
REMOVED = {
    "librosa.output.write_wav": (
        "scipy.io.wavfile.write(path, sr, y), what write_wav called (norm=True: y / "
        "np.max(np.abs(y)) first), or soundfile.write(path, y, sr) for 16-bit PCM", "0.8"),
    "librosa.output": ("scipy.io.wavfile.write / np.savetxt", "0.8"),
    "librosa.util.example_audio_file": ("librosa.ex('vibeace'), the same recording", "0.9"),
    "librosa.feature.rmse": ("librosa.feature.rms, the same function under the name 0.6.3 "
                             "gave it", "0.7"),
    "librosa.display.waveplot": ("librosa.display.waveshow(y, sr=sr), which draws the "
                                 "waveform itself where waveplot drew its envelope", "0.10"),
    "librosa.logamplitude": ("librosa.power_to_db, the same function under the name 0.5 gave "
                             "it (ref_power= is ref=)", "0.6"),
}

# function -> (arguments it still takes by position, 0.8.1's names for the ones after)
POSITIONAL: Dict[str, Tuple[int, str]] = {
    "librosa.A4_to_tuning": (1, "bins_per_octave"),
    "librosa.A_weighting": (1, "min_db"),
    "librosa.B_weighting": (1, "min_db"),
    "librosa.C_weighting": (1, "min_db"),
    "librosa.D_weighting": (1, "min_db"),
    "librosa.Z_weighting": (1, "min_db"),
    "librosa.amplitude_to_db": (1, "ref amin top_db"),
    "librosa.autocorrelate": (1, "max_size axis"),
    "librosa.beat.beat_track": (0, "y sr onset_envelope hop_length start_bpm tightness trim bpm "
                                   "prior units"),
    "librosa.beat.fourier_tempogram": (0, "y sr onset_envelope hop_length win_length center "
                                          "window"),
    "librosa.beat.plp": (0, "y sr onset_envelope hop_length win_length tempo_min tempo_max prior"),
    "librosa.beat.tempo": (0, "y sr onset_envelope hop_length start_bpm std_bpm ac_size max_tempo "
                              "aggregate prior"),
    "librosa.blocks_to_frames": (1, "block_length"),
    "librosa.blocks_to_samples": (1, "block_length hop_length"),
    "librosa.blocks_to_time": (1, "block_length hop_length sr"),
    "librosa.chirp": (0, "fmin fmax sr length duration linear phi"),
    "librosa.clicks": (0, "times frames sr hop_length click_freq click_duration click length"),
    "librosa.cqt": (1, "sr hop_length fmin n_bins bins_per_octave tuning filter_scale norm "
                       "sparsity window scale pad_mode res_type dtype"),
    "librosa.cqt_frequencies": (1, "fmin bins_per_octave tuning"),
    "librosa.db_to_amplitude": (1, "ref"),
    "librosa.db_to_power": (1, "ref"),
    "librosa.decompose.decompose": (1, "n_components transformer sort fit"),
    "librosa.decompose.hpss": (1, "kernel_size power mask margin"),
    "librosa.decompose.nn_filter": (1, "rec aggregate axis"),
    "librosa.effects.deemphasis": (1, "coef zi"),
    "librosa.effects.pitch_shift": (1, "sr n_steps bins_per_octave res_type"),
    "librosa.effects.preemphasis": (1, "coef zi return_zf"),
    "librosa.effects.remix": (2, "align_zeros"),
    "librosa.effects.split": (1, "top_db ref frame_length hop_length"),
    "librosa.effects.time_stretch": (1, "rate"),
    "librosa.effects.trim": (1, "top_db ref frame_length hop_length"),
    "librosa.estimate_tuning": (0, "y sr S n_fft resolution bins_per_octave"),
    "librosa.feature.chroma_cens": (0, "y sr C hop_length fmin tuning n_chroma n_octaves "
                                       "bins_per_octave cqt_mode window norm win_len_smooth "
                                       "smoothing_window"),
    "librosa.feature.chroma_cqt": (0, "y sr C hop_length fmin norm threshold tuning n_chroma "
                                      "n_octaves window bins_per_octave cqt_mode"),
    "librosa.feature.chroma_stft": (0, "y sr S norm n_fft hop_length win_length window center "
                                       "pad_mode tuning n_chroma"),
    "librosa.feature.delta": (1, "width order axis mode"),
    "librosa.feature.fourier_tempogram": (0, "y sr onset_envelope hop_length win_length center "
                                             "window"),
    "librosa.feature.melspectrogram": (0, "y sr S n_fft hop_length win_length window center "
                                          "pad_mode power"),
    "librosa.feature.mfcc": (0, "y sr S n_mfcc dct_type norm lifter"),
    "librosa.feature.poly_features": (0, "y sr S n_fft hop_length win_length window center "
                                         "pad_mode order freq"),
    "librosa.feature.rms": (0, "y S frame_length hop_length center pad_mode"),
    "librosa.feature.spectral_bandwidth": (0, "y sr S n_fft hop_length win_length window center "
                                              "pad_mode freq centroid norm p"),
    "librosa.feature.spectral_centroid": (0, "y sr S n_fft hop_length freq win_length window "
                                             "center pad_mode"),
    "librosa.feature.spectral_contrast": (0, "y sr S n_fft hop_length win_length window center "
                                             "pad_mode freq fmin n_bands quantile linear"),
    "librosa.feature.spectral_flatness": (0, "y S n_fft hop_length win_length window center "
                                             "pad_mode amin power"),
    "librosa.feature.spectral_rolloff": (0, "y sr S n_fft hop_length win_length window center "
                                            "pad_mode freq roll_percent"),
    "librosa.feature.stack_memory": (1, "n_steps delay"),
    "librosa.feature.tempo": (0, "y sr onset_envelope hop_length start_bpm std_bpm ac_size "
                                 "max_tempo aggregate prior"),
    "librosa.feature.tempogram": (0, "y sr onset_envelope hop_length win_length center window "
                                     "norm"),
    "librosa.feature.tonnetz": (0, "y sr chroma"),
    "librosa.feature.zero_crossing_rate": (1, "frame_length hop_length center"),
    "librosa.fft_frequencies": (0, "sr n_fft"),
    "librosa.filters.chroma": (0, "sr n_fft n_chroma tuning ctroct octwidth norm base_c dtype"),
    "librosa.filters.constant_q": (0, "sr fmin n_bins bins_per_octave window filter_scale pad_fft "
                                      "norm dtype gamma"),
    "librosa.filters.constant_q_lengths": (0, "sr fmin n_bins bins_per_octave window filter_scale "
                                              "gamma"),
    "librosa.filters.cq_to_chroma": (1, "bins_per_octave n_chroma fmin window base_c dtype"),
    "librosa.filters.diagonal_filter": (2, "slope angle zero_mean"),
    "librosa.filters.fft_frequencies": (0, "sr n_fft"),
    "librosa.filters.get_window": (2, "fftbins"),
    "librosa.filters.hz_to_octs": (1, "tuning bins_per_octave"),
    "librosa.filters.mel": (0, "sr n_fft n_mels fmin fmax htk norm dtype"),
    "librosa.filters.mel_frequencies": (1, "fmin fmax htk"),
    "librosa.filters.semitone_filterbank": (0, "center_freqs tuning sample_rates flayout"),
    "librosa.filters.window_sumsquare": (0, "window n_frames hop_length win_length n_fft dtype "
                                            "norm"),
    "librosa.fmt": (1, "t_min n_fmt kind beta over_sample axis"),
    "librosa.fourier_tempo_frequencies": (0, "sr win_length hop_length"),
    "librosa.frames_to_samples": (1, "hop_length n_fft"),
    "librosa.frames_to_time": (1, "sr hop_length n_fft"),
    "librosa.frequency_weighting": (1, "kind"),
    "librosa.get_duration": (0, "y sr S n_fft hop_length center filename"),
    "librosa.griffinlim": (1, "n_iter hop_length win_length window center dtype length pad_mode "
                              "momentum init random_state"),
    "librosa.griffinlim_cqt": (1, "n_iter sr hop_length fmin bins_per_octave tuning filter_scale "
                                  "norm sparsity window scale pad_mode res_type dtype length "
                                  "momentum init random_state"),
    "librosa.hybrid_cqt": (1, "sr hop_length fmin n_bins bins_per_octave tuning filter_scale norm "
                              "sparsity window scale pad_mode res_type dtype"),
    "librosa.hz_to_mel": (1, "htk"),
    "librosa.hz_to_octs": (1, "tuning bins_per_octave"),
    "librosa.hz_to_svara_c": (1, "Sa mela abbr octave unicode"),
    "librosa.hz_to_svara_h": (1, "Sa abbr octave unicode"),
    "librosa.icqt": (1, "sr hop_length fmin bins_per_octave tuning filter_scale norm sparsity "
                        "window scale length res_type dtype"),
    "librosa.iirt": (1, "sr win_length hop_length center tuning pad_mode flayout"),
    "librosa.interp_harmonics": (1, "freqs"),
    "librosa.istft": (1, "hop_length win_length window center dtype length"),
    "librosa.key_to_notes": (1, "unicode"),
    "librosa.load": (1, "sr mono offset duration dtype res_type"),
    "librosa.lpc": (1, "order"),
    "librosa.magphase": (1, "power"),
    "librosa.mel_frequencies": (1, "fmin fmax htk"),
    "librosa.mel_to_hz": (1, "htk"),
    "librosa.mela_to_svara": (1, "abbr unicode"),
    "librosa.midi_to_note": (1, "octave cents key unicode"),
    "librosa.midi_to_svara_c": (1, "Sa mela abbr octave unicode"),
    "librosa.midi_to_svara_h": (1, "Sa abbr octave unicode"),
    "librosa.mu_compress": (1, "mu quantize"),
    "librosa.mu_expand": (1, "mu quantize"),
    "librosa.multi_frequency_weighting": (1, "kinds"),
    "librosa.note_to_midi": (1, "round_midi"),
    "librosa.note_to_svara_c": (1, "Sa mela abbr octave unicode"),
    "librosa.note_to_svara_h": (1, "Sa abbr octave unicode"),
    "librosa.octs_to_hz": (1, "tuning bins_per_octave"),
    "librosa.onset.melspectrogram": (0, "y sr S n_fft hop_length win_length window center "
                                        "pad_mode power"),
    "librosa.onset.onset_detect": (0, "y sr onset_envelope hop_length backtrack energy units "
                                      "normalize"),
    "librosa.onset.onset_strength": (0, "y sr S lag max_size ref detrend center feature aggregate"),
    "librosa.onset.onset_strength_multi": (0, "y sr S n_fft hop_length lag max_size ref detrend "
                                              "center feature aggregate channels"),
    "librosa.pcen": (1, "sr hop_length gain bias power time_constant eps b max_size ref axis "
                        "max_axis zi return_zf"),
    "librosa.perceptual_weighting": (2, "kind"),
    "librosa.phase_vocoder": (1, "rate hop_length"),
    "librosa.piptrack": (0, "y sr S n_fft hop_length fmin fmax threshold win_length window center "
                            "pad_mode ref"),
    "librosa.pitch_tuning": (1, "resolution bins_per_octave"),
    "librosa.power_to_db": (1, "ref amin top_db"),
    "librosa.pseudo_cqt": (1, "sr hop_length fmin n_bins bins_per_octave tuning filter_scale norm "
                              "sparsity window scale pad_mode dtype"),
    "librosa.pyin": (1, "fmin fmax sr frame_length win_length hop_length n_thresholds "
                        "beta_parameters boltzmann_parameter resolution max_transition_rate "
                        "switch_prob no_trough_prob fill_na center pad_mode"),
    "librosa.reassigned_spectrogram": (1, "sr S n_fft hop_length win_length window center "
                                          "reassign_frequencies reassign_times ref_power fill_nan "
                                          "clip dtype pad_mode"),
    "librosa.resample": (1, "orig_sr target_sr res_type fix scale"),
    "librosa.salience": (1, "freqs"),
    "librosa.samples_like": (1, "hop_length n_fft axis"),
    "librosa.samples_to_frames": (1, "hop_length n_fft"),
    "librosa.samples_to_time": (1, "sr"),
    "librosa.segment.agglomerative": (2, "clusterer axis"),
    "librosa.segment.cross_similarity": (2, "k metric sparse mode bandwidth"),
    "librosa.segment.diagonal_filter": (2, "slope angle zero_mean"),
    "librosa.segment.lag_to_recurrence": (1, "axis"),
    "librosa.segment.path_enhance": (2, "window max_ratio min_ratio n_filters zero_mean clip"),
    "librosa.segment.recurrence_matrix": (1, "k width metric sym sparse mode bandwidth self axis"),
    "librosa.segment.recurrence_to_lag": (1, "pad axis"),
    "librosa.segment.subsegment": (2, "n_segments axis"),
    "librosa.sequence.dtw": (2, "C metric step_sizes_sigma weights_add weights_mul subseq "
                                "backtrack global_constraints band_rad return_steps"),
    "librosa.sequence.dtw_backtracking": (1, "step_sizes_sigma subseq start"),
    "librosa.sequence.fill_off_diagonal": (1, "radius value"),
    "librosa.sequence.get_window": (2, "fftbins"),
    "librosa.sequence.pad_center": (1, "size axis"),
    "librosa.sequence.rqa": (1, "gap_onset gap_extend knight_moves backtrack"),
    "librosa.sequence.transition_local": (2, "window wrap"),
    "librosa.sequence.viterbi": (2, "p_init return_logp"),
    "librosa.sequence.viterbi_binary": (2, "p_state p_init return_logp"),
    "librosa.sequence.viterbi_discriminative": (2, "p_state p_init return_logp"),
    "librosa.stft": (1, "n_fft hop_length win_length window center dtype pad_mode"),
    "librosa.stream": (1, "block_length frame_length hop_length mono offset duration fill_value "
                          "dtype"),
    "librosa.tempo_frequencies": (1, "hop_length sr"),
    "librosa.time_to_frames": (1, "sr hop_length n_fft"),
    "librosa.time_to_samples": (1, "sr"),
    "librosa.times_like": (1, "sr hop_length n_fft axis"),
    "librosa.tone": (1, "sr length duration phi"),
    "librosa.tuning_to_A4": (1, "bins_per_octave"),
    "librosa.util.axis_sort": (1, "axis index value"),
    "librosa.util.buf_to_float": (1, "n_bytes dtype"),
    "librosa.util.cyclic_gradient": (1, "edge_order axis"),
    "librosa.util.dtype_c2r": (1, "default"),
    "librosa.util.dtype_r2c": (1, "default"),
    "librosa.util.fill_off_diagonal": (1, "radius value"),
    "librosa.util.find_files": (1, "ext recurse case_sensitive limit offset"),
    "librosa.util.fix_frames": (1, "x_min x_max pad"),
    "librosa.util.fix_length": (1, "size axis"),
    "librosa.util.frame": (1, "frame_length hop_length axis"),
    "librosa.util.index_to_slice": (1, "idx_min idx_max step pad"),
    "librosa.util.localmax": (1, "axis"),
    "librosa.util.localmin": (1, "axis"),
    "librosa.util.normalize": (1, "norm axis threshold fill"),
    "librosa.util.pad_center": (1, "size axis"),
    "librosa.util.peak_pick": (1, "pre_max post_max pre_avg post_avg delta wait"),
    "librosa.util.shear": (1, "factor axis"),
    "librosa.util.softmask": (2, "power split_zeros"),
    "librosa.util.sparsify_rows": (1, "quantile dtype"),
    "librosa.util.stack": (1, "axis"),
    "librosa.util.sync": (2, "aggregate pad axis"),
    "librosa.util.valid_int": (1, "cast"),
    "librosa.vqt": (1, "sr hop_length fmin n_bins gamma bins_per_octave tuning filter_scale norm "
                       "sparsity window scale pad_mode res_type dtype"),
    "librosa.yin": (1, "fmin fmax sr frame_length win_length hop_length trough_threshold center "
                       "pad_mode"),
    "librosa.zero_crossings": (1, "threshold ref_magnitude pad zero_pos axis"),
}  # end of POSITIONAL
# fmt: on
